/**
 * Another workspace's click id must be indistinguishable from an unknown one (issue 11,
 * defect 6): the same status and body, and the same work, since an unknown click id waits
 * for the click queues of every instance (the click may still be queued somewhere) while a
 * click found in the wrong workspace used to be refused at once — 10 ms against 1,000 ms told
 * a stranger that the id exists.
 *
 * The services run on the real database with counting conversion dependencies (the waits
 * become no-ops that count), so "went through the same wait" is asserted exactly; over HTTP
 * the responses are compared. The two timings are measured by `npm run bench timing`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { errorBody } from '../../../src/http/errors.js';
import type { Ctx } from '../../../src/core/context.js';
import { trackLead, trackSale, type ConversionDeps } from '../../../src/modules/conversions/service.js';
import { requireWorkspace } from '../../../src/modules/workspaces/service.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { clientWithClick, type ConversionApi } from './helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** Conversion dependencies that record every flush request and wait instead of doing them. */
function countingDeps() {
  const calls = { pendingChecks: 0, flushes: 0, flushRequests: 0, sleeps: [] as number[] };
  const deps: ConversionDeps = {
    shortLinkBaseUrl: 'https://lt.test',
    isClickPending: () => {
      calls.pendingChecks++;
      return false;
    },
    flushClicks: async () => {
      calls.flushes++;
    },
    requestClickFlush: async () => {
      calls.flushRequests++;
    },
    sleep: async (ms) => {
      calls.sleeps.push(ms);
    },
  };
  return { deps, calls };
}

/** Workspace A (the caller) and B, whose click is stored in the database (B tracked a lead on it). */
async function twoWorkspaces() {
  const a = await clientWithClick(t);
  const b = await clientWithClick(t);
  await b.api.okLead(leadBody(b.clickId));
  const now = new Date();
  const ctxA: Ctx = { db: t.database.db, workspace: await requireWorkspace({ ctx: { db: t.database.db, now }, input: { id: a.api.ws.id } }), now };
  return { a, b, ctxA };
}

const leadBody = (clickId: string) => ({ clickId, eventName: 'Sign up', customerExternalId: 'user-1', customerName: 'N' });
const saleBody = (clickId: string) => ({ clickId, amount: 100, customerExternalId: 'user-1', customerName: 'N' });

async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return errorBody(err as AppError);
  }
  throw new Error('expected a refusal');
}

describe('a click id of another workspace is treated exactly as an unknown one', () => {
  for (const [name, track, body] of [
    ['lead', trackLead, leadBody],
    ['sale', trackSale, saleBody],
  ] as const) {
    it(`${name}: same error and the same wait for the instances' click queues`, async () => {
      const { b, ctxA } = await twoWorkspaces();
      const foreign = countingDeps();
      const unknown = countingDeps();
      const foreignError = await refusal(() => track({ ctx: ctxA, deps: foreign.deps, input: body(b.clickId) as never }));
      const unknownError = await refusal(() => track({ ctx: ctxA, deps: unknown.deps, input: body(randomUUID()) as never }));
      expect(foreignError).toEqual(unknownError);
      expect(foreignError.error.code).toBe('invalid_field');
      // The unknown id waited for the other instances; the foreign one must have done the same.
      expect(unknown.calls.flushRequests).toBeGreaterThan(0);
      expect(foreign.calls).toEqual(unknown.calls);
    });
  }
});

describe('over HTTP', () => {
  async function answer(api: ConversionApi, path: 'lead' | 'sale', body: object) {
    const res = await api[path](body);
    return { status: res.statusCode, body: res.json<unknown>() };
  }

  for (const [path, body] of [
    ['lead', leadBody],
    ['sale', saleBody],
  ] as const) {
    it(`POST /api/track/${path}: the same 400 for a foreign and an unknown click id`, async () => {
      const { a, b } = await twoWorkspaces();
      const foreign = await answer(a.api, path, body(b.clickId));
      const unknown = await answer(a.api, path, body(randomUUID()));
      expect(foreign.status).toBe(400);
      expect(foreign).toEqual(unknown);
    });
  }
});
