/**
 * The setup every delivery test file shares: an app that delivers (WEBHOOK_DELIVERY=true,
 * loopback receivers allowed, the file's own retry schedule) on a database of the file's own,
 * so no other file's worker claims its deliveries; a fresh workspace per test, since an event
 * goes to every endpoint of its workspace; receivers closed at the end.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Conn } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { startReceiver, type Receiver, START_MS } from './receiver.js';

export interface DeliveryApp {
  readonly t: TestApp;
  /** This test's workspace. */
  readonly ws: string;
  db(): Conn;
  /** A receiver started for this file (see startReceiver), closed after its last test. */
  receiver(o?: Parameters<typeof startReceiver>[0]): Promise<Receiver>;
}

/** Registers the file's hooks; call at the top of a test file. `env` adds settings (WEBHOOK_CONCURRENCY). */
export function useDeliveryApp(retryDelays: string, env: Record<string, string> = {}): DeliveryApp {
  let t: TestApp | undefined;
  let ws = '';
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      database: await freshDatabase(),
      env: { WEBHOOK_DELIVERY: 'true', ALLOW_PRIVATE_DESTINATIONS: 'true', WEBHOOK_RETRY_DELAYS: retryDelays, ...env },
    });
  }, START_MS);
  beforeEach(async () => {
    ws = (await t!.workspace()).id;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await dropFreshDatabases();
  });
  return {
    get t() {
      return t!;
    },
    get ws() {
      return ws;
    },
    db: () => t!.database.db,
    async receiver(o = {}) {
      const r = await startReceiver(o);
      receivers.push(r);
      return r;
    },
  };
}
