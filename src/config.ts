import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  shortLinkBaseUrl: string;
  databaseUrl: string | undefined;
  /** A streaming replica of databaseUrl that analytics reads go to (undefined: the primary serves them). */
  databaseReadUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  secret: string;
  /** The secret before a rotation (SECRET_PREVIOUS): values sealed under it still open. */
  secretPrevious: string | undefined;
  trustProxy: boolean;
  countryHeader: string | undefined;
  /** Trusted edge headers carrying the visitor's region and city names (e.g. Cloudflare's cf-region, cf-ipcity). */
  regionHeader: string | undefined;
  cityHeader: string | undefined;
  /** A DB-IP Lite or GeoLite2 city .mmdb the operator provides (GEOIP_CITY_DB): region and city by address. */
  geoipCityDb: string | undefined;
  clickIdParam: string;
  logLevel: LogLevel;
  allowPrivateDestinations: boolean;
  /** Worker processes `npm start` runs (node:cluster); more than one needs PostgreSQL and Redis. */
  workers: number;
  /** PostgreSQL connections per process (30% of them, from 3, set apart for expensive requests). */
  dbPoolSize: number;
  /** Whether the tracking path's statements are named prepared statements (off behind a pooler that cannot track them). */
  dbPreparedStatements: boolean;
  /** How long one statement of an expensive request may run (http/heavy-requests.ts), in ms. */
  heavyStatementTimeoutMs: number;
  /** Where each process spools its clicks before answering (undefined: no spool). */
  clickSpoolDir: string | undefined;
  /** fdatasync interval of the spool in ms; 0 syncs before every answer. */
  clickSpoolSyncMs: number;
  /** A session ends after this long unused (SESSION_IDLE, default 24 h). */
  sessionIdleMs: number;
  /** …and this long after sign-in whatever its use (SESSION_MAX, default 7 days). */
  sessionMaxMs: number;
  /** Anyone may create an account (and a workspace they own); otherwise by invitation only. */
  allowSignup: boolean;
  /** Raw clicks are kept this many whole months (rollups for good); undefined: forever. */
  clickRetentionMonths: number | undefined;
  /** AUDIT_RETENTION_DAYS: audit entries and sign-ins older than this are deleted (operations.md §15). */
  auditRetentionDays: number;
  /** Whether this instance sends webhook deliveries (WEBHOOK_DELIVERY, default true). */
  webhookDelivery: boolean;
  /** Webhook attempts in flight per instance (WEBHOOK_CONCURRENCY, default 50). */
  webhookConcurrency: number;
  /** The operator's in-house ranges webhooks may reach (WEBHOOK_ALLOWED_CIDRS; http allowed there). */
  webhookAllowedCidrs: string[];
  /** The operator's in-house ranges an SSO identity provider may be reached in (SSO_ALLOWED_CIDRS; http allowed there). */
  ssoAllowedCidrs: string[];
  /** Waits before each retry of a failed delivery (WEBHOOK_RETRY_DELAYS; §11's schedule by default). */
  webhookRetryDelaysMs: number[];
  /** How long an import stays one instance's without progress before another takes it over (IMPORT_LEASE_SECONDS, default 30). */
  importLeaseMs: number;
  /** Hosts no workspace may claim (RESERVED_HOSTS, plus always those of BASE_URL and SHORT_LINK_BASE_URL). */
  reservedHosts: string[];
  /** Resolvers the TXT check of a claimed host asks (DNS_SERVERS, `ip` or `ip:port`); empty: the system's. */
  dnsServers: string[];
  /** Requests a minute the browser-tracking routes take per workspace (CLIENT_TRACKING_PER_MINUTE); undefined: ten times the plan's API figure. */
  clientTrackingPerMinute: number | undefined;
  /** Outgoing mail (SMTP_URL and MAIL_FROM, operations.md §15); undefined: the service sends none. */
  mail: { url: string; from: string; retryDelaysMs: number[] } | undefined;
}

/** Thrown for a bad configuration value; main prints its one-line message and exits. */
export class ConfigError extends Error {}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function bad(name: string, why: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${why}`);
}

function parsePort(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) bad(name, `must be an integer from 0 to 65535 (got "${raw}")`);
  const n = Number(raw);
  if (n > 65535) bad(name, `must be an integer from 0 to 65535 (got "${raw}")`);
  return n;
}

function parseBool(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no', ''].includes(v)) return false;
  return bad(name, `must be true or false (got "${raw}")`);
}

function parseOrigin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad(name, `must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(name, `must use http or https (got "${raw}")`);
  if (url.search || url.hash) bad(name, `must not carry a query or fragment (got "${raw}")`);
  return raw.replace(/\/+$/, '');
}

function parseUrlWithScheme(name: string, raw: string, schemes: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad(name, `must be a URL (got a value that does not parse)`);
  }
  if (!schemes.includes(url.protocol)) bad(name, `must start with ${schemes.map((s) => `${s}//`).join(' or ')}`);
  return raw;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `30m`, `24h`, `7d` or plain seconds, at least a minute and at most a year. */
function parseDuration(name: string, raw: string): number {
  const m = /^(\d{1,9})([smhd]?)$/.exec(raw.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] || 's']! : NaN;
  if (!(ms >= 60_000 && ms <= 366 * 86_400_000)) bad(name, `must be a duration from 1m to 366d such as 30m, 24h or 7d (got "${raw}")`);
  return ms;
}

/** §11's retry schedule: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_DELAYS = '5s,5m,30m,2h,5h,10h,10h';
/** Waits before each retry of a mail the server did not take; after the last the mail is dropped (and logged). */
export const MAIL_RETRY_DELAYS = '30s,2m,10m,30m,1h,2h,4h,8h';

/** A comma-separated list of 1 to 20 waits such as `5s,5m,2h` (`ms` too, for tests), each at most a day. */
function parseDelays(name: string, raw: string): number[] {
  const units: Record<string, number> = { ms: 1, ...UNIT_MS };
  const delays = raw.split(',').map((part) => {
    const m = /^(\d{1,9})(ms|[smhd])$/.exec(part.trim());
    const ms = m ? Number(m[1]) * units[m[2]!]! : NaN;
    return ms <= 86_400_000 ? ms : NaN;
  });
  if (delays.length > 20 || delays.some((d) => Number.isNaN(d)))
    bad(name, `must be 1 to 20 waits of at most 1d separated by commas, such as ${WEBHOOK_RETRY_DELAYS} (got "${raw}")`);
  return delays;
}

/** Comma-separated CIDR ranges (`10.0.0.0/8,fd00::/8`). */
function parseCidrs(name: string, raw: string): string[] {
  const ranges = raw
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  for (const r of ranges) if (!ipaddr.isValidCIDR(r)) bad(name, `must be CIDR ranges separated by commas, such as 10.0.0.0/8,fd00::/8 (got "${r}")`);
  return ranges;
}

/** Comma-separated host names, stored as a claim is (lower-case punycode, no trailing dot). */
function parseHosts(name: string, raw: string): string[] {
  return raw
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '')
    .map((h) => {
      const ascii = domainToASCII(h.replace(/\.$/, ''));
      if (!ascii) bad(name, `must be host names separated by commas, such as brand.example,go.example (got "${h}")`);
      return ascii;
    });
}

/** Comma-separated resolver addresses, `ip` or `ip:port` (`[v6]:port`), as node:dns's setServers takes them. */
function parseDnsServers(name: string, raw: string): string[] {
  const servers = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const s of servers) {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)|([0-9a-fA-F:]+))(?::(\d{1,5}))?$/.exec(s);
    const ip = m?.[1] ?? m?.[2] ?? (m?.[4] === undefined ? m?.[3] : undefined);
    if (!ip || isIP(ip) === 0 || Number(m?.[4] ?? 53) > 65535)
      bad(name, `must be resolver addresses ip or ip:port separated by commas, such as 127.0.0.1:5353,[::1]:53 (got "${s}")`);
  }
  return servers;
}

/** Reads the secret kept in DATA_DIR, creating it on first start. */
function loadOrCreateSecret(dataDir: string): string {
  if (dataDir.startsWith('memory://')) return randomBytes(32).toString('base64url');
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** Validates every variable of operations.md §1; the first bad one throws a ConfigError naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const port = parsePort('PORT', get('PORT') ?? '3000');
  const host = get('HOST') ?? '0.0.0.0';
  const baseUrl = parseOrigin('BASE_URL', get('BASE_URL') ?? `http://localhost:${port}`);
  const shortLinkBaseUrl = parseOrigin('SHORT_LINK_BASE_URL', get('SHORT_LINK_BASE_URL') ?? baseUrl);
  const databaseUrlRaw = get('DATABASE_URL');
  const databaseUrl = databaseUrlRaw ? parseUrlWithScheme('DATABASE_URL', databaseUrlRaw, ['postgres:', 'postgresql:']) : undefined;
  const databaseReadUrlRaw = get('DATABASE_READ_URL');
  const databaseReadUrl = databaseReadUrlRaw ? parseUrlWithScheme('DATABASE_READ_URL', databaseReadUrlRaw, ['postgres:', 'postgresql:']) : undefined;
  if (databaseReadUrl && !databaseUrl)
    bad('DATABASE_READ_URL', 'needs DATABASE_URL (it names a replica of that PostgreSQL server; the embedded database has none)');
  const dataDirRaw = get('DATA_DIR') ?? './data';
  const dataDir = dataDirRaw.startsWith('memory://') ? dataDirRaw : resolve(dataDirRaw);
  const redisUrlRaw = get('REDIS_URL');
  const redisUrl = redisUrlRaw ? parseUrlWithScheme('REDIS_URL', redisUrlRaw, ['redis:', 'rediss:']) : undefined;
  const adminToken = get('ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) bad('ADMIN_TOKEN', 'must be at least 16 characters');
  let secret = get('SECRET');
  if (secret !== undefined && secret.length < 32) bad('SECRET', 'must be at least 32 characters');
  if (secret === undefined && databaseUrl) bad('SECRET', 'is required when DATABASE_URL is set');
  const trustProxy = parseBool('TRUST_PROXY', get('TRUST_PROXY') ?? 'false');
  const countryHeaderRaw = get('COUNTRY_HEADER');
  if (countryHeaderRaw !== undefined && !/^[A-Za-z0-9-]+$/.test(countryHeaderRaw)) bad('COUNTRY_HEADER', 'must be an HTTP header name');
  const [regionHeader, cityHeader] = (['REGION_HEADER', 'CITY_HEADER'] as const).map((name) => {
    const raw = get(name);
    if (raw !== undefined && !/^[A-Za-z0-9-]+$/.test(raw)) bad(name, 'must be an HTTP header name');
    return raw?.toLowerCase();
  });
  const clickIdParam = get('CLICK_ID_PARAM') ?? 'ltid';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(clickIdParam)) bad('CLICK_ID_PARAM', 'must be 1-64 letters, digits, "_" or "-"');
  const logLevelRaw = get('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) bad('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const allowPrivateDestinations = parseBool('ALLOW_PRIVATE_DESTINATIONS', get('ALLOW_PRIVATE_DESTINATIONS') ?? 'false');
  const workersRaw = get('WORKERS') ?? '1';
  if (!/^\d+$/.test(workersRaw) || Number(workersRaw) < 1 || Number(workersRaw) > 256) bad('WORKERS', `must be an integer from 1 to 256 (got "${workersRaw}")`);
  const workers = Number(workersRaw);
  if (workers > 1 && !databaseUrl) bad('WORKERS', 'above 1 needs DATABASE_URL (the embedded database serves one process)');
  if (workers > 1 && !redisUrl) bad('WORKERS', 'above 1 needs REDIS_URL (limits and caches must be shared)');
  const poolRaw = get('DB_POOL_SIZE') ?? '10';
  if (!/^\d+$/.test(poolRaw) || Number(poolRaw) < 1 || Number(poolRaw) > 1000) bad('DB_POOL_SIZE', `must be an integer from 1 to 1000 (got "${poolRaw}")`);
  const preparedRaw = get('DB_PREPARED_STATEMENTS') ?? 'on';
  if (preparedRaw !== 'on' && preparedRaw !== 'off') bad('DB_PREPARED_STATEMENTS', `must be on or off (got "${preparedRaw}")`);
  const heavyTimeoutRaw = get('HEAVY_STATEMENT_TIMEOUT_SECONDS') ?? '15';
  if (!/^\d{1,4}$/.test(heavyTimeoutRaw) || Number(heavyTimeoutRaw) < 1 || Number(heavyTimeoutRaw) > 3600) {
    bad('HEAVY_STATEMENT_TIMEOUT_SECONDS', `must be an integer from 1 to 3600 (got "${heavyTimeoutRaw}")`);
  }
  const spoolRaw = get('CLICK_SPOOL_DIR');
  // In-memory test instances have no disk to spool to unless a directory is named.
  const clickSpoolDir = spoolRaw === 'off' ? undefined : spoolRaw ? resolve(spoolRaw) : dataDir.startsWith('memory://') ? undefined : join(dataDir, 'spool');
  const syncRaw = get('CLICK_SPOOL_SYNC_MS') ?? '100';
  if (!/^\d+$/.test(syncRaw) || Number(syncRaw) > 60_000) bad('CLICK_SPOOL_SYNC_MS', `must be an integer from 0 to 60000 (got "${syncRaw}")`);
  const sessionIdleMs = parseDuration('SESSION_IDLE', get('SESSION_IDLE') ?? '24h');
  const sessionMaxMs = parseDuration('SESSION_MAX', get('SESSION_MAX') ?? '7d');
  if (sessionIdleMs > sessionMaxMs) bad('SESSION_IDLE', 'must not be longer than SESSION_MAX');
  const allowSignup = parseBool('ALLOW_SIGNUP', get('ALLOW_SIGNUP') ?? 'false');
  const retentionRaw = get('CLICK_RETENTION_MONTHS');
  if (retentionRaw !== undefined && !(/^\d{1,4}$/.test(retentionRaw) && Number(retentionRaw) >= 1 && Number(retentionRaw) <= 1200)) {
    bad('CLICK_RETENTION_MONTHS', `must be a whole number of months from 1 to 1200, or unset to keep clicks forever (got "${retentionRaw}")`);
  }
  const auditRetentionRaw = get('AUDIT_RETENTION_DAYS') ?? '365';
  if (!/^\d{1,6}$/.test(auditRetentionRaw) || Number(auditRetentionRaw) < 1 || Number(auditRetentionRaw) > 36500) {
    bad('AUDIT_RETENTION_DAYS', `must be a whole number of days from 1 to 36500 (got "${auditRetentionRaw}")`);
  }
  secret ??= loadOrCreateSecret(dataDir);
  const secretPrevious = get('SECRET_PREVIOUS');
  if (secretPrevious !== undefined && secretPrevious.length < 32) bad('SECRET_PREVIOUS', 'must be at least 32 characters');
  if (secretPrevious !== undefined && secretPrevious === secret) bad('SECRET_PREVIOUS', 'must differ from SECRET (it is the secret before a rotation)');
  const importLeaseRaw = get('IMPORT_LEASE_SECONDS') ?? '30';
  if (!/^\d{1,4}$/.test(importLeaseRaw) || Number(importLeaseRaw) < 1 || Number(importLeaseRaw) > 3600) {
    bad('IMPORT_LEASE_SECONDS', `must be an integer from 1 to 3600 (got "${importLeaseRaw}")`);
  }
  const webhookConcurrencyRaw = get('WEBHOOK_CONCURRENCY') ?? '50';
  if (!/^\d{1,4}$/.test(webhookConcurrencyRaw) || Number(webhookConcurrencyRaw) < 1 || Number(webhookConcurrencyRaw) > 1000) {
    bad('WEBHOOK_CONCURRENCY', `must be an integer from 1 to 1000 (got "${webhookConcurrencyRaw}")`);
  }
  const clientTrackingRaw = get('CLIENT_TRACKING_PER_MINUTE');
  if (clientTrackingRaw !== undefined && !(/^\d{1,9}$/.test(clientTrackingRaw) && Number(clientTrackingRaw) >= 1)) {
    bad(
      'CLIENT_TRACKING_PER_MINUTE',
      `must be a whole number of requests a minute from 1, or unset for ten times the plan's figure (got "${clientTrackingRaw}")`,
    );
  }
  const mail = parseMail(get('SMTP_URL'), get('MAIL_FROM'), get('MAIL_RETRY_DELAYS'));
  return {
    port,
    host,
    baseUrl,
    shortLinkBaseUrl,
    databaseUrl,
    databaseReadUrl,
    dataDir,
    redisUrl,
    adminToken,
    secret,
    secretPrevious,
    trustProxy,
    countryHeader: countryHeaderRaw?.toLowerCase(),
    regionHeader,
    cityHeader,
    geoipCityDb: get('GEOIP_CITY_DB'),
    clickIdParam,
    logLevel: logLevelRaw as LogLevel,
    allowPrivateDestinations,
    workers,
    dbPoolSize: Number(poolRaw),
    dbPreparedStatements: preparedRaw === 'on',
    heavyStatementTimeoutMs: Number(heavyTimeoutRaw) * 1000,
    clickSpoolDir,
    clickSpoolSyncMs: Number(syncRaw),
    sessionIdleMs,
    sessionMaxMs,
    allowSignup,
    clickRetentionMonths: retentionRaw === undefined ? undefined : Number(retentionRaw),
    auditRetentionDays: Number(auditRetentionRaw),
    webhookDelivery: parseBool('WEBHOOK_DELIVERY', get('WEBHOOK_DELIVERY') ?? 'true'),
    webhookConcurrency: Number(webhookConcurrencyRaw),
    importLeaseMs: Number(importLeaseRaw) * 1000,
    webhookAllowedCidrs: parseCidrs('WEBHOOK_ALLOWED_CIDRS', get('WEBHOOK_ALLOWED_CIDRS') ?? ''),
    ssoAllowedCidrs: parseCidrs('SSO_ALLOWED_CIDRS', get('SSO_ALLOWED_CIDRS') ?? ''),
    webhookRetryDelaysMs: parseDelays('WEBHOOK_RETRY_DELAYS', get('WEBHOOK_RETRY_DELAYS') ?? WEBHOOK_RETRY_DELAYS),
    // The service's own hosts are never claimable (a claim would take its API and short links).
    reservedHosts: [...new Set([new URL(baseUrl).hostname, new URL(shortLinkBaseUrl).hostname, ...parseHosts('RESERVED_HOSTS', get('RESERVED_HOSTS') ?? '')])],
    dnsServers: parseDnsServers('DNS_SERVERS', get('DNS_SERVERS') ?? ''),
    clientTrackingPerMinute: clientTrackingRaw === undefined ? undefined : Number(clientTrackingRaw),
    mail,
  };
}

/** SMTP_URL (smtp:// or smtps://, user and password in it) needs MAIL_FROM, an address or `Name <address>`. */
function parseMail(url: string | undefined, from: string | undefined, delays: string | undefined): Config['mail'] {
  if (url === undefined) {
    if (from !== undefined) bad('MAIL_FROM', 'needs SMTP_URL (the server that sends the mail)');
    return undefined;
  }
  // The URL may hold a password: the message names the variable, never echoes its value.
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    bad('SMTP_URL', 'must be a URL such as smtp://user:password@mail.example:587 or smtps://…:465');
  }
  if (!['smtp:', 'smtps:'].includes(parsed.protocol) || !parsed.hostname)
    bad('SMTP_URL', 'must be a URL such as smtp://user:password@mail.example:587 or smtps://…:465');
  if (from === undefined) bad('MAIL_FROM', 'is required with SMTP_URL (for example "Linktrail <links@example.com>")');
  if (!/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(from.trim()))
    bad('MAIL_FROM', `must be an address or "Name <address>" (got "${from}")`);
  return { url, from: from.trim(), retryDelaysMs: parseDelays('MAIL_RETRY_DELAYS', delays ?? MAIL_RETRY_DELAYS) };
}
