/** A Redis of the run's own, nothing durable (as README "Production deployment" says suffices). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import type { Teardown } from './teardown.js';

export function redisUnavailable(): string | undefined {
  return spawnSync('redis-server', ['--version']).error ? 'redis-server is not installed' : undefined;
}

function pong(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = createConnection({ host, port }, () => conn.write('PING\r\n'));
    conn.once('data', (b: Buffer) => {
      conn.destroy();
      resolve(b.toString().startsWith('+PONG'));
    });
    conn.once('error', () => resolve(false));
  });
}

export async function startRedis(t: Teardown, port: number, listen: string[]): Promise<ChildProcess> {
  // Protected mode would refuse the instances' namespaces (not loopback); it listens on this run's addresses only.
  const args = ['--port', String(port), '--bind', ...listen, '--protected-mode', 'no', '--save', '', '--appendonly', 'no', '--dir', t.dir];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  t.undo(`kill -9 ${child.pid} 2>/dev/null`);
  for (let i = 0; i < 100; i++) {
    if (await pong('127.0.0.1', port)) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis-server did not answer on port ${port}`);
}
