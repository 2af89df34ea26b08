/**
 * The load: `wrk` on a short link (redirects), run until stopped so that a phase lasts as long
 * as its kill or restart takes; and API clients in this process creating links and tracking
 * leads and sales, each answer kept with its start and end times.
 */
import { spawn } from 'node:child_process';

export interface WrkResult {
  requests: number;
  rps: number;
  p99ms: number;
  non3xx: number;
  socketErrors: number;
}

function parseWrk(out: string): WrkResult {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const p99 = /99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p99ms: p99 ? Number(p99[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[p99[2]!]! : NaN,
    non3xx: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
    socketErrors: errors ? errors.slice(1).reduce((n, v) => n + Number(v), 0) : 0,
  };
}

/**
 * Starts wrk (at most `maxSeconds`); `stop()` ends it early with SIGINT (wrk then prints its
 * summary). `undo` records how to kill it should this process die first.
 */
export function startWrk(url: string, maxSeconds: number, undo: (command: string) => void, connections = 32): { stop(): Promise<WrkResult> } {
  const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${maxSeconds}s`, '--latency', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  undo(`kill -9 ${child.pid} 2>/dev/null`);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      const result = parseWrk(out);
      if (Number.isNaN(result.requests)) throw new Error(`wrk printed no summary:\n${out}`);
      return result;
    },
  };
}

export async function wrkFor(url: string, seconds: number, undo: (command: string) => void): Promise<WrkResult> {
  const run = startWrk(url, seconds + 5, undo);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return run.stop();
}

export type Operation = 'link' | 'lead' | 'sale';

export interface Answer {
  operation: Operation;
  status: number;
  startedAt: number;
  endedAt: number;
  /** Why there was no answer (status 0). */
  error?: string;
}

/** `clients` loops, each sending one operation after another until stopped. */
export function startApiLoad(base: string, key: string, collectionId: string, clickIds: string[], clients = 6): { stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  const customersWithLead: string[] = [];
  let running = true;
  let n = 0;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const bodyOf = (operation: Operation, i: number): [string, unknown] => {
    if (operation === 'link') return ['/api/links', [{ url: `https://example.com/cluster/${i}`, collectionId }]];
    if (operation === 'lead' || customersWithLead.length === 0) {
      return [
        '/api/track/lead',
        { clickId: clickIds[i % clickIds.length], eventName: 'Sign up', customerExternalId: `customer-${i}`, customerName: `Customer ${i}` },
      ];
    }
    const customer = customersWithLead[i % customersWithLead.length]!;
    return ['/api/track/sale', { customerExternalId: customer, customerName: customer, amount: 1999, currency: 'usd' }];
  };
  const loop = async () => {
    while (running) {
      const i = n++;
      const operation = (['link', 'lead', 'sale'] as const)[i % 3]!;
      const [path, body] = bodyOf(operation, i);
      const actual: Operation = path.endsWith('lead') ? 'lead' : path.endsWith('sale') ? 'sale' : 'link';
      const startedAt = performance.now();
      let status = 0;
      let error: string | undefined;
      try {
        const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
        status = res.status;
        await res.arrayBuffer();
      } catch (err) {
        // No answer at all (a socket error): status 0.
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        error = cause?.code ?? cause?.message ?? (err as Error).message;
      }
      answers.push({ operation: actual, status, startedAt, endedAt: performance.now(), ...(error ? { error } : {}) });
      if (actual === 'lead' && status >= 200 && status < 300) customersWithLead.push(`customer-${i}`);
    }
  };
  const loops = Array.from({ length: clients }, loop);
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}
