/**
 * An address of its own for each instance: a network namespace joined to this one by a veth
 * pair when the machine allows it (root and `ip netns`), loopback addresses 127.0.0.2… otherwise.
 * `gateway` is the address the instance reaches PostgreSQL and Redis at (this side of its link).
 */
import { spawnSync } from 'node:child_process';
import type { Teardown } from './teardown.js';

export interface Place {
  /** Where the instance listens (HAProxy's server address). */
  address: string;
  /** Where it finds PostgreSQL and Redis. */
  gateway: string;
  /** The command prefix that runs a program there. */
  exec: string[];
}

export interface Network {
  kind: 'network namespaces' | 'loopback addresses';
  places: Place[];
  /** Addresses PostgreSQL and Redis listen on. */
  listen: string[];
  /** The CIDR the instances connect from (PostgreSQL's pg_hba). */
  clients: string;
}

function ip(args: string[]): void {
  const done = spawnSync('ip', args, { encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`ip ${args.join(' ')}: ${done.stderr || done.error?.message}`);
}

function namespaces(t: Teardown, count: number): Network {
  // One /24 per run, from this process's id, so two runs do not meet; a /30 per instance in it.
  const net = `10.201.${process.pid % 250}`;
  const tag = `lt${process.pid}`;
  const places: Place[] = [];
  for (let i = 1; i <= count; i++) {
    const ns = `${tag}-${i}`;
    const [host, peer] = [`${tag}h${i}`, `${tag}n${i}`];
    const [gateway, address] = [`${net}.${4 * i + 1}`, `${net}.${4 * i + 2}`];
    ip(['netns', 'add', ns]);
    t.undo(`ip netns del ${ns}`);
    ip(['link', 'add', host, 'type', 'veth', 'peer', 'name', peer]);
    t.undo(`ip link del ${host}`);
    ip(['link', 'set', peer, 'netns', ns]);
    ip(['addr', 'add', `${gateway}/30`, 'dev', host]);
    ip(['link', 'set', host, 'up']);
    ip(['netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/30`, 'dev', peer]);
    ip(['netns', 'exec', ns, 'ip', 'link', 'set', peer, 'up']);
    ip(['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    places.push({ address, gateway, exec: ['ip', 'netns', 'exec', ns] });
  }
  return { kind: 'network namespaces', places, listen: ['127.0.0.1', ...places.map((p) => p.gateway)], clients: `${net}.0/24` };
}

function loopback(count: number): Network {
  const places = Array.from({ length: count }, (_, i) => ({ address: `127.0.0.${i + 2}`, gateway: '127.0.0.1', exec: [] }));
  return { kind: 'loopback addresses', places, listen: ['127.0.0.1'], clients: '127.0.0.0/8' };
}

/** Namespaces when they can be made (NETNS=off forces loopback addresses). */
export function makeNetwork(t: Teardown, count: number): Network {
  if (process.env.NETNS !== 'off' && process.getuid?.() === 0) {
    try {
      return namespaces(t, count);
    } catch (err) {
      console.log(`network namespaces unavailable (${(err as Error).message.trim()}); using loopback addresses`);
    }
  }
  return loopback(count);
}
