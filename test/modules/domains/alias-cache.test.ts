/** The alias cache on its own: unknown paths never evict found aliases; link changes evict theirs. */
import { describe, expect, it } from 'vitest';
import { LocalBus } from '../../../src/infra/bus.js';
import { AliasCache } from '../../../src/modules/redirect/alias-cache.js';
import type { RedirectLink } from '../../../src/modules/redirect/resolve.js';

const linkFor = (id: string) => ({ id }) as RedirectLink;

describe('AliasCache', () => {
  it('a flood of unknown paths fills only the misses: the found aliases stay cached', async () => {
    const loads: string[] = [];
    const cache = new AliasCache(
      async (host, path) => {
        loads.push(path);
        return path.startsWith('/hot') ? linkFor(`link${path}`) : null;
      },
      new LocalBus(),
      { ttlMs: 60_000, shortTtlMs: 60_000, maxHits: 10, maxMisses: 5 },
    );
    for (let i = 0; i < 10; i++) await cache.get('b.example', `/hot${i}`);
    for (let i = 0; i < 1000; i++) await cache.get('b.example', `/scan${i}`);
    for (let i = 0; i < 10; i++) expect(cache.peek('b.example', `/hot${i}`)?.id).toBe(`link/hot${i}`);
    expect(cache.peek('b.example', '/scan0')).toBeUndefined(); // bounded: the oldest misses went
    expect(cache.peek('b.example', '/scan999')).toBeNull();
  });

  it('a change of a link drops every alias leading to it, and nothing else', async () => {
    const bus = new LocalBus();
    const cache = new AliasCache(async (_host, path) => linkFor(path === '/c' ? 'other' : 'same'), bus);
    for (const p of ['/a', '/b', '/c']) await cache.get('b.example', p);
    await bus.publish(['same']);
    expect(cache.peek('b.example', '/a')).toBeUndefined();
    expect(cache.peek('b.example', '/b')).toBeUndefined();
    expect(cache.peek('b.example', '/c')?.id).toBe('other');
  });
});
