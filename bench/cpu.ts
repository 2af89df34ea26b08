/**
 * CPU time of the processes that serve a request, from /proc: the instance (by pid), every
 * PostgreSQL process (its backends, writer, WAL writer…, and those that exited, through the
 * postmaster's reaped children) and Redis. A snapshot before and after a measured run gives the
 * CPU time each spent per request, whatever cores they ran on.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of utime and stime in /proc/<pid>/stat (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

export type CpuSnapshot = Map<string, number>;

/** CPU seconds so far of the instance and of every postgres and redis-server process, by role. */
export function cpuSnapshot(instancePid: number): CpuSnapshot {
  const byRole: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // The command name is in parentheses and may hold spaces: the fields follow the last ')'.
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const role = Number(entry) === instancePid ? 'instance' : name === 'postgres' ? 'postgres' : name.startsWith('redis-server') ? 'redis' : undefined;
    if (!role) continue;
    const fields = stat.slice(close + 2).split(' ');
    // utime + stime; for PostgreSQL also cutime + cstime, the time of children it reaped: a
    // backend or autovacuum worker that exits during a run leaves its time with the postmaster
    // (summing the living alone once made a run's PostgreSQL time negative).
    const ticks = Number(fields[11]) + Number(fields[12]) + (role === 'postgres' ? Number(fields[13]) + Number(fields[14]) : 0);
    const seconds = ticks / TICKS_PER_SECOND;
    byRole.set(role, (byRole.get(role) ?? 0) + seconds);
  }
  return byRole;
}

/** Microseconds of CPU per request, by role and in total, between two snapshots. */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const role of ['instance', 'postgres', 'redis']) {
    const us = (((after.get(role) ?? 0) - (before.get(role) ?? 0)) * 1e6) / requests;
    out[role] = us;
    total += us;
  }
  out.total = total;
  return out;
}
