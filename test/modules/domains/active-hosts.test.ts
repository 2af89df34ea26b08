/** The active-host table on its own: once closed (the instance stopping), nothing reloads it. */
import { describe, expect, it } from 'vitest';
import { LocalBus } from '../../../src/infra/bus.js';
import { ActiveHosts, type ClaimedHost } from '../../../src/modules/domains/service.js';

const quiet = { warn: () => undefined };
/** Lets a reload the bus started (its load resolves at once) finish. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ActiveHosts', () => {
  it('reloads on a change announced through the bus until closed, then never (the database may be closing)', async () => {
    const bus = new LocalBus();
    let loads = 0;
    const hosts = new ActiveHosts(
      async (): Promise<ClaimedHost[]> => {
        loads++;
        return [{ host: 'brand.example', workspaceId: 'ws', rootUrl: null, notFoundUrl: null }];
      },
      bus,
      quiet,
    );
    await hosts.start();
    expect(loads).toBe(1);
    await bus.publishDomainsChanged();
    await settled();
    expect(loads).toBe(2);
    await hosts.close();
    await bus.publishDomainsChanged();
    await settled();
    expect(loads).toBe(2);
    expect(hosts.get('brand.example')?.workspaceId).toBe('ws'); // the last table still answers
  });

  it('waits, when closed, for the reload under way', async () => {
    let finish: (hosts: ClaimedHost[]) => void = () => undefined;
    let loads = 0;
    const hosts = new ActiveHosts(
      () => (++loads === 1 ? Promise.resolve([]) : new Promise<ClaimedHost[]>((resolve) => (finish = resolve))),
      new LocalBus(),
      quiet,
    );
    await hosts.start();
    void hosts.refresh();
    let closed = false;
    const closing = hosts.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false);
    finish([{ host: 'late.example', workspaceId: 'ws', rootUrl: null, notFoundUrl: null }]);
    await closing;
    expect(hosts.get('late.example')?.workspaceId).toBe('ws');
  });
});
