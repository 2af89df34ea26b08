/** The figures of a cluster run, one `name: value` line each, and the goals of operations.md §17. */
import type { Answer, WrkResult } from './load.js';

export interface Phase {
  name: string;
  wrk: WrkResult;
  from: number;
  to: number;
}

export interface Run {
  single: WrkResult;
  /** The cluster through HAProxy, same wrk, before the API load starts. */
  redirectsOnly: WrkResult;
  phases: Phase[];
  answers: Answer[];
  killAt: number;
  lag: { phase: string; seconds: number; bytes: number }[];
  endLag: { seconds: number; bytes: number };
  haproxy: Record<'3xx' | '2xx' | '4xx' | '5xx' | 'retries' | 'redispatches', number>;
  stored: { clicks: number; leads: number; sales: number; links: number };
  /** Clicks the restarted instances found in their spools and wrote. */
  replayed: number;
}

const DETECTION_MS = 1000;

const p99 = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
};
const failed = (a: Answer) => a.status >= 500 || a.status === 0;
const ok = (a: Answer) => a.status >= 200 && a.status < 300;

function phaseLines(run: Run, phase: Phase): string[] {
  const answers = run.answers.filter((a) => a.startedAt >= phase.from && a.startedAt < phase.to);
  const maxLag = run.lag
    .filter((l) => l.phase === phase.name)
    .reduce((m, l) => ({ seconds: Math.max(m.seconds, l.seconds), bytes: Math.max(m.bytes, l.bytes) }), { seconds: 0, bytes: 0 });
  const { wrk } = phase;
  return [
    `${phase.name}: seconds: ${((phase.to - phase.from) / 1000).toFixed(1)}`,
    `${phase.name}: redirects answered (wrk): ${wrk.requests} (${wrk.rps.toFixed(0)} req/s), non-3xx ${wrk.non3xx}, socket errors ${wrk.socketErrors}, p99 ${wrk.p99ms.toFixed(1)} ms`,
    `${phase.name}: API answers: ${answers.length}, 5xx or none ${answers.filter(failed).length}, p99 ${p99(answers.map((a) => a.endedAt - a.startedAt)).toFixed(1)} ms`,
    `${phase.name}: replica lag at most: ${maxLag.seconds.toFixed(2)} s, ${maxLag.bytes} bytes`,
  ];
}

export function report(run: Run): string {
  const { answers, stored, haproxy } = run;
  // The killed instance's requests: those HAProxy had sent it and those it sends it before its
  // checks (every 500 ms, down after 2 failures) take it out, so up to 1 s after the kill.
  const inFlightAtKill = answers.filter((a) => failed(a) && a.startedAt < run.killAt + DETECTION_MS && a.endedAt >= run.killAt);
  const otherFailures = answers.filter((a) => failed(a) && !inFlightAtKill.includes(a));
  const twoXX = (op: Answer['operation']) => answers.filter((a) => a.operation === op && ok(a)).length;
  const failedOf = (op: Answer['operation']) => answers.filter((a) => a.operation === op && failed(a)).length;
  // A write that failed for the client may still have been done (its instance died after
  // committing, or the answer was lost): stored lies between the 2xx and the 2xx plus those.
  const accounted = (op: Answer['operation'], stored: number) => stored >= twoXX(op) && stored <= twoXX(op) + failedOf(op);
  const stores = (op: Answer['operation'], stored: number) =>
    `${stored} / ${twoXX(op)}${failedOf(op) ? ` (+${failedOf(op)} without a 2xx: 5xx or no answer)` : ''}`;
  const throughHaproxy = [run.redirectsOnly, ...run.phases.map((p) => p.wrk)];
  const redirects = throughHaproxy.reduce((n, w) => n + w.requests, 0);
  const non3xx = throughHaproxy.reduce((n, w) => n + w.non3xx, 0);
  const socketErrors = throughHaproxy.reduce((n, w) => n + w.socketErrors, 0);
  const lines = [
    '',
    '== cluster figures',
    `single instance, straight (wrk -t1 -c32): ${run.single.rps.toFixed(0)} req/s, p99 ${run.single.p99ms.toFixed(1)} ms`,
    `cluster through HAProxy, redirects only (same wrk): ${run.redirectsOnly.rps.toFixed(0)} req/s, p99 ${run.redirectsOnly.p99ms.toFixed(1)} ms, non-3xx ${run.redirectsOnly.non3xx}`,
    ...run.phases.flatMap((p) => phaseLines(run, p)),
    `requests answered: ${redirects + answers.length} (redirects ${redirects}, API ${answers.length})`,
    `non-3xx redirects: ${non3xx}`,
    `redirect socket errors (wrk): ${socketErrors}`,
    `API 5xx or no answer: ${inFlightAtKill.length + otherFailures.length} (the killed instance's, sent before HAProxy took it out ${inFlightAtKill.length}, other ${otherFailures.length})`,
    ...(otherFailures.length
      ? [
          `API failures outside the kill's in-flight (operation status, ms after the kill): ${otherFailures
            .slice(0, 20)
            .map(
              (a) =>
                `${a.operation} ${a.status}${a.error ? ` (${a.error})` : ''} ${(a.startedAt - run.killAt).toFixed(0)}–${(a.endedAt - run.killAt).toFixed(0)}`,
            )
            .join(', ')}`,
        ]
      : []),
    `HAProxy retries: ${haproxy.retries}, redispatches: ${haproxy.redispatches}`,
    `clicks stored / redirects HAProxy passed on: ${stored.clicks} / ${haproxy['3xx']}`,
    `clicks replayed from spools after the kill: ${run.replayed}`,
    `leads stored / 2xx answers: ${stores('lead', stored.leads)}`,
    `sales stored / 2xx answers: ${stores('sale', stored.sales)}`,
    `links stored / 2xx answers: ${stores('link', stored.links)}`,
    `replica lag at the end: ${run.endLag.seconds.toFixed(2)} s, ${run.endLag.bytes} bytes`,
    '',
    '== goals',
    `clicks lost: ${Math.max(0, haproxy['3xx'] - stored.clicks)}${stored.clicks > haproxy['3xx'] ? ` (and ${stored.clicks - haproxy['3xx']} stored beyond the 3xx passed on: redirects whose instance died before its answer reached HAProxy)` : ''}`,
    `API 5xx outside the killed instance's in-flight requests: ${otherFailures.length}`,
    `conversions stored = 2xx: ${stored.leads === twoXX('lead') && stored.sales === twoXX('sale') ? 'yes' : 'no'}`,
    `every 2xx stored, nothing stored twice: ${accounted('lead', stored.leads) && accounted('sale', stored.sales) && accounted('link', stored.links) ? 'yes' : 'no'}`,
    `cluster redirect throughput / single instance: ${run.redirectsOnly.rps.toFixed(0)} / ${run.single.rps.toFixed(0)} req/s (${(run.redirectsOnly.rps / run.single.rps).toFixed(2)})`,
  ];
  return lines.join('\n');
}
