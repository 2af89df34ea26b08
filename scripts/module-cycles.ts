// The module-level import graph of src/modules: a module depends on another when any of its
// files imports any of the other's (types too). madge sees cycles between files; two modules
// can still need each other through different files (before issue 42 clicks/store.ts imported
// analytics/link-days.ts while analytics/store.ts imported clicks/service.ts), which makes them
// one module in all but name. Run by
// `npm run lint:cycles`; exits 1 printing each cycle with the imports that close it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../src/modules');
const specifier = /(?:^|[;\s])(?:import|export)\s(?:[^'";]*?\sfrom\s)?'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const moduleOf = (path: string): string | undefined => {
  const rel = relative(root, path);
  return rel.startsWith('..') ? undefined : rel.split(sep)[0];
};

// edges.get(from).get(to) = the import sites ("clicks/store.ts → analytics/service.js")
const edges = new Map<string, Map<string, string[]>>();
for (const file of sourceFiles(root)) {
  const from = moduleOf(file)!;
  const targets = edges.get(from) ?? new Map<string, string[]>();
  edges.set(from, targets);
  for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
    const spec = match[1] ?? match[2]!;
    if (!spec.startsWith('.')) continue;
    const to = moduleOf(resolve(dirname(file), spec));
    if (to === undefined || to === from) continue;
    const sites = targets.get(to) ?? [];
    sites.push(`${relative(root, file)} → ${relative(root, resolve(dirname(file), spec))}`);
    targets.set(to, sites);
  }
}

// Tarjan's strongly connected components: every component of more than one module is a cycle.
function components(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

const cycles = components();
if (cycles.length === 0) {
  console.log(`module-cycles: no cycle between the ${edges.size} modules of src/modules`);
  process.exit(0);
}
for (const component of cycles) {
  const members = new Set(component);
  console.error(`module cycle: ${component.join(', ')}`);
  for (const from of component) {
    for (const [to, sites] of [...(edges.get(from) ?? [])].sort()) {
      if (!members.has(to)) continue;
      console.error(`  ${from} → ${to}: ${sites.join('; ')}`);
    }
  }
}
process.exit(1);
