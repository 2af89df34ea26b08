/**
 * HAProxy in front of the instances: round robin, health checks on /readyz every 500 ms, and
 * retries that never repeat a write: a request whose connection failed is sent to another
 * instance (nothing reached the first); reads (GET, HEAD) are also retried on an empty answer
 * or a 503; writes only on a 503 (an instance that is closing, or cannot reach the database,
 * answers 503 before doing anything). Its runtime API (a Unix socket) reports the counters and
 * takes instances out of rotation for a rolling restart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { Teardown } from './teardown.js';

export interface Haproxy {
  child: ChildProcess;
  url: string;
  /** One command on the runtime API; its answer. */
  command(line: string): Promise<string>;
  /** Counters of the two backends summed: answers by class, retries, redispatches. */
  counters(): Promise<Record<'3xx' | '2xx' | '4xx' | '5xx' | 'retries' | 'redispatches', number>>;
  /** The state HAProxy's checks give server `name` (UP, DOWN, MAINT, …). */
  status(name: string): Promise<string>;
}

function config(port: number, socket: string, servers: { name: string; address: string; port: number }[]): string {
  const list = (backend: string) =>
    servers
      .map((s) => (backend === 'reads' ? `  server ${s.name} ${s.address}:${s.port} check` : `  server ${s.name} ${s.address}:${s.port} track reads/${s.name}`))
      .join('\n');
  return `global
  maxconn 4096
  stats socket ${socket} mode 600 level admin
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 10s
  retries 3
  option redispatch 1
frontend web
  bind 127.0.0.1:${port}
  # The instances run with TRUST_PROXY=true: the visitor's address is the one HAProxy saw.
  http-request set-header X-Forwarded-For %[src]
  use_backend reads if METH_GET
  default_backend writes
backend reads
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
  retry-on conn-failure empty-response response-timeout 503
${list('reads')}
backend writes
  balance roundrobin
  retry-on conn-failure 503
${list('writes')}
`;
}

export async function startHaproxy(t: Teardown, port: number, servers: { name: string; address: string; port: number }[]): Promise<Haproxy> {
  const socket = join(t.dir, 'haproxy.sock');
  const file = join(t.dir, 'haproxy.cfg');
  writeFileSync(file, config(port, socket, servers));
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  t.undo(`kill -9 ${child.pid} 2>/dev/null`);
  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      let answer = '';
      const conn = createConnection(socket, () => conn.end(`${line}\n`));
      conn.on('data', (b: Buffer) => (answer += b.toString()));
      conn.on('end', () => resolve(answer));
      conn.on('error', reject);
    });
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    try {
      await command('show info');
      break;
    } catch {
      if (i > 100) throw new Error(`haproxy did not open its socket: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const stat = async () => {
    const [header, ...lines] = (await command('show stat')).trim().split('\n');
    const names = header!.replace(/^# /, '').split(',');
    return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])) as Record<string, string>);
  };
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    command,
    async counters() {
      const backends = (await stat()).filter((r) => r.svname === 'BACKEND');
      const sum = (field: string) => backends.reduce((n, r) => n + Number(r[field] || 0), 0);
      return {
        '2xx': sum('hrsp_2xx'),
        '3xx': sum('hrsp_3xx'),
        '4xx': sum('hrsp_4xx'),
        '5xx': sum('hrsp_5xx'),
        retries: sum('wretr'),
        redispatches: sum('wredis'),
      };
    },
    async status(name) {
      return (await stat()).find((r) => r.pxname === 'reads' && r.svname === name)?.status ?? '?';
    },
  };
}
