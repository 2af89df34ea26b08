#!/usr/bin/env node
/**
 * `npx linktrail`: the operator API from a terminal. Talks HTTP to a running server, so it
 * works the same against a local instance or a deployed one.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SCOPE_GUIDE } from '../core/scope-guide.js';
import { SCOPES, type Scope } from '../core/scopes.js';
import { PLANS } from '../core/plans.js';
import { call, CliError, usageError, type Call } from './http.js';
import { checkImportArgs, runExport, runImport, SOURCES, type Terminal } from './transfer.js';

/** Each command's usage line, and what it does. */
const COMMANDS: Record<string, [usage: string, does: string]> = {
  'workspace create': ['workspace create --name <name> [--plan free|pro|business|enterprise]', 'create a workspace (plan free by default)'],
  'workspace list': ['workspace list', 'list every workspace'],
  'workspace update': [
    'workspace update <workspaceId> [--name <n>] [--plan <p>] [--rate-limit <n|default>] [--max-bulk <n|default>]',
    "rename, change the plan, or override the plan's limits (default: back to the plan's)",
  ],
  'key create': [
    'key create <workspaceId> --name <name> (--scopes <s1,s2,...> | --all-scopes) [--expires-at <ISO 8601>]',
    'create an API key; its secret is printed once',
  ],
  'key list': ['key list <workspaceId>', 'list the keys of a workspace (revoked ones with revokedAt)'],
  'key revoke': ['key revoke <keyId>', 'revoke a key, at once and for good'],
  'user create': [
    'user create --email <email> --name <name>   (password from $LINKTRAIL_PASSWORD, or --password-stdin)',
    'create a user who can sign in (never put a password in the command line: it shows in ps)',
  ],
  'user list': ['user list', 'list every user'],
  'users reset-link': [
    'users reset-link <email>',
    'make a password reset link for a user (single use, valid one hour) to hand over by other means: the way to reset a password on a server without mail (no SMTP_URL)',
  ],
  'member add': ['member add <workspaceId> --user <userId> --role owner|member|viewer', 'make a user a member of a workspace with a role'],
  import: [
    `import <file> --workspace <workspaceId> [--source ${SOURCES.join('|')}] [--collection <name or id>] [--mapping <json>] [--domain <host>] [--upgrade-http] [--errors <file.csv>]`,
    "import links from another service's export (docs/imports.md): a background job on the server, followed with a progress bar until it ends. Exit code 1 when rows were rejected (--errors saves their reasons as CSV) or the job failed",
  ],
  export: [
    'export --workspace <workspaceId> > file.ndjson',
    'the whole workspace as NDJSON on stdout, one record a line (links, collections, tags, partners, customers, clicks, leads, sales)',
  ],
  'sso verify-domain': [
    'sso verify-domain <workspaceId> --domain <domain>',
    "vouch for an e-mail domain of a workspace's single sign-on without its TXT record: it admits sign-ins through that workspace's identity provider",
  ],
  mcp: [
    'mcp   (environment: LINKTRAIL_API_KEY, LINKTRAIL_BASE_URL)',
    "serve the Model Context Protocol on stdio for an AI assistant's MCP client: tools to create and find links, read analytics and record leads and sales, acting with the API key in $LINKTRAIL_API_KEY and only its scopes (no operator token), on the server at --url, else $LINKTRAIL_BASE_URL, else --url's default. stdout carries the protocol only",
  ],
  'secrets reseal': [
    'secrets reseal',
    'after a SECRET rotation (the server started with the new SECRET and the old one in SECRET_PREVIOUS): move every sealed value (link passwords, webhook secrets…) to the new SECRET, and print a count per table and column. Safe to run again. Exit code 1 when some value opens under neither secret (they are listed and left as they are)',
  ],
};

const ROLES = ['owner', 'member', 'viewer'];

const OPTIONS = `Options:
  --url <url>     server address (default: $LINKTRAIL_URL, else $BASE_URL, else http://localhost:$PORT or :3000)
  --token <t>     operator token (default: $ADMIN_TOKEN)
  --json          print raw JSON (for scripts)
  -h, --help      this help (also after a command: linktrail key create --help)
  -v, --version   the version of this linktrail

Guides: docs/ of the package, also served by the server at /docs/guides (the API reference at /docs).`;

const SCOPE_HELP = `Scopes (for --scopes, comma-separated; each independent of the others):
${SCOPES.map((s) => `  ${s.padEnd(17)} ${SCOPE_GUIDE[s]}`).join('\n')}`;

function usage(command?: string): string {
  const one = command === undefined ? undefined : COMMANDS[command];
  if (one) return `Usage: linktrail ${one[0]}\n\n${one[1]}\n\n${OPTIONS}\n${command === 'key create' ? `\n${SCOPE_HELP}\n` : ''}`;
  const commands = Object.values(COMMANDS)
    .map(([u, d]) => `  ${u}\n      ${d}`)
    .join('\n');
  return `Usage: linktrail <command> [options]\n\nCommands:\n${commands}\n\n${OPTIONS}\n\n${SCOPE_HELP}\n`;
}

type Json = Record<string, unknown>;

/** package.json sits two levels above src/cli and dist/cli, in the checkout and in an installed package. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Same reading as the server's date-time format (RFC 3339, offset required). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function uuidArg(raw: string | undefined, what: string, placeholder: string, command: string): string {
  if (!raw) throw usageError(`missing ${placeholder}\n\n${usage(command)}`);
  if (!UUID.test(raw)) throw usageError(`${what} must be a UUID: ${raw}`);
  return raw;
}

function limitValue(raw: string | undefined, option: string): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'default' || raw === 'null') return null;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw usageError(`${option} must be a positive integer or "default": ${raw}`);
  return Number(raw);
}

function planValue(raw: string | undefined): string | undefined {
  if (raw !== undefined && !(PLANS as readonly string[]).includes(raw)) throw usageError(`plan must be one of ${PLANS.join(', ')}: ${raw}`);
  return raw;
}

function scopesValue(raw: string): Scope[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw usageError(`--scopes needs at least one scope\n\n${SCOPE_HELP}`);
  for (const name of names) {
    if (!(SCOPES as readonly string[]).includes(name)) throw usageError(`unknown scope "${name}"\n\n${SCOPE_HELP}`);
  }
  return names as Scope[];
}

function expiresValue(raw: string | undefined): string | undefined {
  if (raw !== undefined && (!DATE_TIME.test(raw) || Number.isNaN(Date.parse(raw)))) {
    throw usageError(`--expires-at must be an ISO 8601 date-time such as 2030-01-31T00:00:00Z: ${raw}`);
  }
  return raw;
}

function table(rows: Json[], columns: string[]): string {
  const cells = rows.map((r) => columns.map((c) => (Array.isArray(r[c]) ? (r[c] as unknown[]).join(',') : String(r[c] ?? '-'))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

export async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (s: string) => void,
  readStdin: () => Promise<string> = readAll,
  // import and export write as they go: progress on stderr, the export's stream on stdout.
  terminal: Terminal = { stdout: process.stdout, stderr: process.stderr },
): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
        name: { type: 'string' },
        plan: { type: 'string' },
        'rate-limit': { type: 'string' },
        'max-bulk': { type: 'string' },
        scopes: { type: 'string' },
        'all-scopes': { type: 'boolean', default: false },
        'expires-at': { type: 'string' },
        email: { type: 'string' },
        user: { type: 'string' },
        role: { type: 'string' },
        'password-stdin': { type: 'boolean', default: false },
        workspace: { type: 'string' },
        source: { type: 'string' },
        collection: { type: 'string' },
        mapping: { type: 'string' },
        domain: { type: 'string' },
        'upgrade-http': { type: 'boolean', default: false },
        errors: { type: 'string' },
      },
    });
  } catch (err) {
    // parseArgs names the option ("Unknown option '--nme'"); its code is no use to a person.
    throw usageError(`${(err as Error).message}\n\n${usage()}`);
  }
  const { values, positionals } = parsed;
  const [noun, verb, target] = positionals;
  // import, export and mcp are one word, the rest noun and verb.
  const transfer = noun === 'import' || noun === 'export';
  const command = transfer || noun === 'mcp' ? noun : `${noun ?? ''} ${verb ?? ''}`.trim();
  if (values.version) return out(packageVersion());
  if (values.help || !noun) return out(usage(command));
  if (!(command in COMMANDS)) throw usageError(`unknown command "${positionals.join(' ')}"\n\n${usage()}`);
  const need = (v: string | undefined, what: string): string => {
    if (!v) throw usageError(`missing ${what}\n\n${usage(command)}`);
    return v;
  };
  const workspaceId = () => uuidArg(target, 'workspace id', '<workspaceId>', command);
  const base = values.url ?? env.LINKTRAIL_URL ?? env.BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`;
  const token = values.token ?? env.ADMIN_TOKEN;
  if (command === 'mcp') {
    if (verb !== undefined) throw usageError(`unknown command "${positionals.join(' ')}"\n\n${usage(command)}`);
    // Loaded only here: the MCP SDK is no cost to the other commands.
    const { serveMcp } = await import('./mcp/server.js');
    return serveMcp({ baseUrl: values.url ?? env.LINKTRAIL_BASE_URL ?? base, apiKey: env.LINKTRAIL_API_KEY }, terminal.stderr);
  }
  if (transfer) {
    const ws = uuidArg(values.workspace, 'workspace id (--workspace)', '--workspace <workspaceId>', command);
    if (!token) throw usageError('no operator token: pass --token or set ADMIN_TOKEN');
    if (noun === 'export') return runExport({ base, token }, ws, terminal);
    const file = need(verb, '<file>');
    const args = {
      file,
      workspaceId: ws,
      source: values.source,
      collection: values.collection,
      mapping: values.mapping,
      domain: values.domain,
      upgradeHttp: values['upgrade-http'],
      errors: values.errors,
      json: values.json,
      pollMs: 500,
    };
    checkImportArgs(args);
    return runImport({ base, token }, args, terminal);
  }

  // Every argument is checked before the first request.
  let request: Call | undefined;
  switch (command) {
    case 'workspace create':
      request = { method: 'POST', path: '/admin/workspaces', body: { name: need(values.name, '--name'), plan: planValue(values.plan) } };
      break;
    case 'workspace list':
      request = { method: 'GET', path: '/admin/workspaces' };
      break;
    case 'workspace update': {
      const id = workspaceId();
      const body = {
        name: values.name,
        plan: planValue(values.plan),
        rateLimitPerMinute: limitValue(values['rate-limit'], '--rate-limit'),
        maxBulkItems: limitValue(values['max-bulk'], '--max-bulk'),
      };
      request = { method: 'PATCH', path: `/admin/workspaces/${id}`, body, notFound: `no workspace ${id}` };
      break;
    }
    case 'key create': {
      const id = workspaceId();
      const body = {
        name: need(values.name, '--name'),
        scopes: values['all-scopes'] ? [...SCOPES] : scopesValue(need(values.scopes, '--scopes or --all-scopes')),
        expiresAt: expiresValue(values['expires-at']),
      };
      request = { method: 'POST', path: `/admin/workspaces/${id}/keys`, body, notFound: `no workspace ${id}` };
      break;
    }
    case 'key list': {
      const id = workspaceId();
      request = { method: 'GET', path: `/admin/workspaces/${id}/keys`, notFound: `no workspace ${id}` };
      break;
    }
    case 'key revoke': {
      const id = uuidArg(target, 'key id', '<keyId>', command);
      request = { method: 'DELETE', path: `/admin/keys/${id}`, notFound: `no key ${id}` };
      break;
    }
    case 'user create': {
      const email = need(values.email, '--email');
      const name = need(values.name, '--name');
      const password = values['password-stdin'] ? (await readStdin()).replace(/\r?\n$/, '') : env.LINKTRAIL_PASSWORD;
      if (!password) throw usageError(`no password: set LINKTRAIL_PASSWORD or pass --password-stdin\n\n${usage(command)}`);
      request = { method: 'POST', path: '/admin/users', body: { email, name, password } };
      break;
    }
    case 'user list':
      request = { method: 'GET', path: '/admin/users' };
      break;
    case 'users reset-link': {
      if (!target) throw usageError(`missing <email>\n\n${usage(command)}`);
      request = { method: 'POST', path: '/admin/users/reset-link', body: { email: target }, notFound: `no user with the email ${target}` };
      break;
    }
    case 'member add': {
      const id = workspaceId();
      const userId = uuidArg(values.user, 'user id (--user)', '--user <userId>', command);
      const role = need(values.role, '--role');
      if (!ROLES.includes(role)) throw usageError(`--role must be one of ${ROLES.join(', ')} (got "${role}")`);
      request = { method: 'POST', path: `/admin/workspaces/${id}/members`, body: { userId, role }, notFound: `no workspace ${id} or no user ${userId}` };
      break;
    }
    case 'secrets reseal':
      request = { method: 'POST', path: '/admin/secrets/reseal' };
      break;
    case 'sso verify-domain': {
      const id = workspaceId();
      const domain = need(values.domain, '--domain');
      request = {
        method: 'POST',
        path: `/admin/workspaces/${id}/sso/domains/${encodeURIComponent(domain)}/verify`,
        notFound: `no single sign-on domain ${domain} in workspace ${id}`,
      };
      break;
    }
  }

  if (!token) throw usageError('no operator token: pass --token or set ADMIN_TOKEN');
  const data = await call({ base, token }, request!);
  const print = (render: () => string) => out(values.json ? JSON.stringify(data, null, 2) : render());
  const wsColumns = ['id', 'name', 'plan', 'rateLimitPerMinute', 'maxBulkItems', 'createdAt'];
  const keyColumns = ['id', 'name', 'prefix', 'scopes', 'expiresAt', 'lastUsedAt', 'revokedAt'];
  switch (command) {
    case 'workspace create':
    case 'workspace update':
      return print(() => table([data as Json], wsColumns));
    case 'workspace list':
      return print(() => table(data as Json[], wsColumns));
    case 'key create': {
      const key = data as Json;
      return print(() => `${table([key], keyColumns)}\n\nKey (shown once, keep it safe):\n${String(key.key)}`);
    }
    case 'key list':
      return print(() => table(data as Json[], keyColumns));
    case 'user create':
      return print(() => table([data as Json], ['id', 'email', 'name', 'createdAt']));
    case 'user list':
      return print(() => table(data as Json[], ['id', 'email', 'name', 'createdAt']));
    case 'member add':
      return print(() => table([data as Json], ['workspaceId', 'userId', 'role', 'createdAt']));
    case 'users reset-link': {
      const link = data as Json;
      return print(() => `Password reset link for ${target} (single use, valid until ${String(link.expiresAt)}):\n${String(link.url)}`);
    }
    case 'sso verify-domain':
      return print(() => table((data as { domains: Json[] }).domains, ['domain', 'verified', 'verifiedAt']));
    case 'secrets reseal':
      return reportReseal(data as { columns: ResealCount[] }, print);
    default:
      return print(() => `revoked ${target}`);
  }
}

interface ResealCount extends Json {
  table: string;
  column: string;
  unopenable: number;
  unopenableIds: string[];
}

/** The count per table and column; values no secret opens make the command fail, naming them. */
function reportReseal(data: { columns: ResealCount[] }, print: (render: () => string) => void): void {
  print(() => table(data.columns, ['table', 'column', 'sealed', 'resealed', 'unopenable']));
  const lost = data.columns.filter((c) => c.unopenable > 0);
  if (lost.length === 0) return;
  const which = lost.map(
    (c) => `${c.table}.${c.column}: ${c.unopenable} (ids ${c.unopenableIds.join(', ')}${c.unopenable > c.unopenableIds.length ? ', …' : ''})`,
  );
  throw new CliError(`some sealed values open under neither SECRET nor SECRET_PREVIOUS and were left as they are — ${which.join('; ')}`);
}

async function readAll(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${(await import('node:fs')).realpathSync(process.argv[1])}`).href;
if (isMain) {
  run(process.argv.slice(2), process.env, (s) => process.stdout.write(s.endsWith('\n') ? s : s + '\n')).catch((err: unknown) => {
    process.stderr.write(`linktrail: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  });
}
