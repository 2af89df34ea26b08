#!/usr/bin/env node
/**
 * `npx linktrail`: the operator API from a terminal. Talks HTTP to a running server, so it
 * works the same against a local instance or a deployed one.
 */
import { parseArgs } from 'node:util';

const USAGE = `Usage: linktrail <command> [options]

Commands:
  workspace create --name <name> [--plan free|pro|business|enterprise]
  workspace list
  workspace update <workspaceId> [--name <n>] [--plan <p>] [--rate-limit <n|default>] [--max-bulk <n|default>]
  key create <workspaceId> --name <name> (--scopes <s1,s2,...> | --all-scopes) [--expires-at <ISO 8601>]
  key list <workspaceId>
  key revoke <keyId>

Options:
  --url <url>     server address (default: $LINKTRAIL_URL, else $BASE_URL, else http://localhost:$PORT or :3000)
  --token <t>     operator token (default: $ADMIN_TOKEN)
  --json          print raw JSON (for scripts)
  -h, --help      this help
`;

const ALL_SCOPES = [
  'linksRead', 'linksWrite', 'collectionsRead', 'collectionsWrite', 'tagsRead', 'tagsWrite',
  'analyticsRead', 'conversionsWrite', 'customersRead', 'customersWrite', 'partnersRead', 'partnersWrite',
];

type Json = Record<string, unknown>;

class CliError extends Error {}

function limitValue(raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'default' || raw === 'null') return null;
  if (!/^\d+$/.test(raw)) throw new CliError(`expected a positive integer or "default", got "${raw}"`);
  return Number(raw);
}

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(base.replace(/\/+$/, '') + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CliError(`cannot reach ${base}: ${(err as Error).cause ?? (err as Error).message}`);
  }
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const msg = (data as { error?: { en?: string } } | undefined)?.error?.en ?? `HTTP ${res.status}`;
    throw new CliError(res.status === 404 && path.startsWith('/admin') && !msg.includes('Not found') ? `${msg} (is ADMIN_TOKEN set on the server?)` : msg);
  }
  return data;
}

function table(rows: Json[], columns: string[]): string {
  const cells = rows.map((r) => columns.map((c) => (Array.isArray(r[c]) ? (r[c] as unknown[]).join(',') : String(r[c] ?? '-'))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

export async function run(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      name: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      'max-bulk': { type: 'string' },
      scopes: { type: 'string' },
      'all-scopes': { type: 'boolean', default: false },
      'expires-at': { type: 'string' },
    },
  });
  const [noun, verb, target] = positionals;
  if (values.help || !noun) return out(USAGE);
  const base = values.url ?? env.LINKTRAIL_URL ?? env.BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`;
  const token = values.token ?? env.ADMIN_TOKEN;
  if (!token) throw new CliError('no operator token: pass --token or set ADMIN_TOKEN');
  const api = (method: string, path: string, body?: unknown) => call(base, token, method, path, body);
  const need = (v: string | undefined, what: string): string => {
    if (!v) throw new CliError(`missing ${what}\n\n${USAGE}`);
    return v;
  };
  const print = (data: unknown, render: () => string) => out(values.json ? JSON.stringify(data, null, 2) : render());
  const wsColumns = ['id', 'name', 'plan', 'rateLimitPerMinute', 'maxBulkItems', 'createdAt'];
  const keyColumns = ['id', 'name', 'prefix', 'scopes', 'expiresAt', 'lastUsedAt', 'revokedAt'];

  switch (`${noun} ${verb ?? ''}`.trim()) {
    case 'workspace create': {
      const ws = (await api('POST', '/admin/workspaces', { name: need(values.name, '--name'), plan: values.plan })) as Json;
      return print(ws, () => table([ws], wsColumns));
    }
    case 'workspace list': {
      const list = (await api('GET', '/admin/workspaces')) as Json[];
      return print(list, () => table(list, wsColumns));
    }
    case 'workspace update': {
      const ws = (await api('PATCH', `/admin/workspaces/${need(target, '<workspaceId>')}`, {
        name: values.name,
        plan: values.plan,
        rateLimitPerMinute: limitValue(values['rate-limit']),
        maxBulkItems: limitValue(values['max-bulk']),
      })) as Json;
      return print(ws, () => table([ws], wsColumns));
    }
    case 'key create': {
      const scopes = values['all-scopes'] ? ALL_SCOPES : need(values.scopes, '--scopes or --all-scopes').split(',').map((s) => s.trim()).filter(Boolean);
      const key = (await api('POST', `/admin/workspaces/${need(target, '<workspaceId>')}/keys`, {
        name: need(values.name, '--name'),
        scopes,
        expiresAt: values['expires-at'],
      })) as Json;
      return print(key, () => `${table([key], keyColumns)}\n\nKey (shown once, keep it safe):\n${String(key.key)}`);
    }
    case 'key list': {
      const list = (await api('GET', `/admin/workspaces/${need(target, '<workspaceId>')}/keys`)) as Json[];
      return print(list, () => table(list, keyColumns));
    }
    case 'key revoke': {
      const res = await api('DELETE', `/admin/keys/${need(target, '<keyId>')}`);
      return print(res, () => `revoked ${target}`);
    }
    default:
      throw new CliError(`unknown command "${positionals.join(' ')}"\n\n${USAGE}`);
  }
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${(await import('node:fs')).realpathSync(process.argv[1])}`).href;
if (isMain) {
  run(process.argv.slice(2), process.env, (s) => process.stdout.write(s.endsWith('\n') ? s : s + '\n')).catch((err: unknown) => {
    process.stderr.write(`linktrail: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof CliError ? 2 : 1);
  });
}
