/**
 * verifyWebhook has the semantics of the `standardwebhooks` package (operations.md §16): on
 * messages that package signs, and on the same messages altered, both accept or both refuse.
 * A real delivery is verified in pack.test.ts, by the packed SDK.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { LinktrailError, verifyWebhook } from '../../../packages/sdk/src/index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const now = () => Math.floor(Date.now() / 1000);
const event = { type: 'link.created', timestamp: '2026-11-24T12:00:00.000Z', data: { id: 'lnk_1', url: 'https://shop.example/ünï' } };

/** Headers of `body` signed by the library with each of `secrets`, space-separated. */
function signed(secrets: string[], body: string, o: { id?: string; timestamp?: number } = {}): Record<string, string> {
  const id = o.id ?? `msg_${randomBytes(6).toString('hex')}`;
  const timestamp = o.timestamp ?? now();
  const signatures = secrets.map((s) => new Webhook(s).sign(id, new Date(timestamp * 1000), body));
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LinktrailError);
  expect((error as LinktrailError).status).toBe(0);
  expect((error as LinktrailError).ar).toMatch(/[\u0600-\u06FF]/);
  return (error as LinktrailError).code;
}

const libraryAccepts = (secret: string, body: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
};
const sdkAccepts = (secret: string, body: string, headers: Record<string, string>) =>
  verifyWebhook(body, headers, secret).then(
    () => true,
    () => false,
  );

describe('verifyWebhook', () => {
  it('returns the event of a message the library signed: text or bytes, plain headers or Headers, any case', async () => {
    const secret = newSecret();
    const body = JSON.stringify(event);
    const headers = signed([secret], body);
    expect(await verifyWebhook(body, headers, secret)).toEqual(event);
    expect(await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret)).toEqual(event);
    const shouting = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await verifyWebhook(Buffer.from(body), shouting, secret)).toEqual(event);
  });

  it('several signatures (a rolled secret signs beside the old one): either secret verifies; so does a list of secrets', async () => {
    const [old, rolled, stranger] = [newSecret(), newSecret(), newSecret()];
    const body = JSON.stringify(event);
    const headers = signed([old, rolled], body);
    headers['webhook-signature'] = `v2,bm90LWEtdjE= ${headers['webhook-signature']}`;
    expect(await verifyWebhook(body, headers, old)).toEqual(event);
    expect(await verifyWebhook(body, headers, rolled)).toEqual(event);
    expect(await verifyWebhook(body, headers, [stranger, rolled])).toEqual(event);
    expect(await refusal(verifyWebhook(body, headers, stranger))).toBe('webhook_signature_mismatch');
  });

  it('refuses missing headers, a bad or distant timestamp, an altered body, id or timestamp', async () => {
    const secret = newSecret();
    const body = JSON.stringify(event);
    const headers = signed([secret], body);
    const { 'webhook-id': _id, ...noId } = headers;
    expect(await refusal(verifyWebhook(body, noId, secret))).toBe('webhook_missing_headers');
    expect(await refusal(verifyWebhook(body, { ...headers, 'webhook-timestamp': 'soon' }, secret))).toBe('webhook_invalid_headers');
    expect(await refusal(verifyWebhook(body, signed([secret], body, { timestamp: now() - 301 }), secret))).toBe('webhook_timestamp_too_old');
    expect(await refusal(verifyWebhook(body, signed([secret], body, { timestamp: now() + 301 }), secret))).toBe('webhook_timestamp_too_new');
    expect(await refusal(verifyWebhook(`${body} `, headers, secret))).toBe('webhook_signature_mismatch');
    expect(await refusal(verifyWebhook(body, { ...headers, 'webhook-id': 'msg_other' }, secret))).toBe('webhook_signature_mismatch');
    expect(await refusal(verifyWebhook(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, secret))).toBe(
      'webhook_signature_mismatch',
    );
  });

  it('agrees with the library on any secret, id, JSON body and clock skew, and on every alteration', async () => {
    const secretArb = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
    const idArb = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/[\s,]/.test(s));
    const alteration = fc.constantFrom('none', 'body', 'id', 'timestamp', 'secret', 'version');
    await fc.assert(
      fc.asyncProperty(
        secretArb,
        secretArb,
        idArb,
        fc.json(),
        fc.integer({ min: -400, max: 400 }),
        alteration,
        async (secret, other, id, body, skew, change) => {
          let headers = signed([secret], body, { id, timestamp: now() + skew });
          let given = body;
          let verifier = secret;
          if (change === 'body') given = `${body} `;
          if (change === 'id') headers = { ...headers, 'webhook-id': `${id}x` };
          if (change === 'timestamp') headers = { ...headers, 'webhook-timestamp': String(now() + skew + 1) };
          if (change === 'secret') verifier = other;
          if (change === 'version') headers = { ...headers, 'webhook-signature': headers['webhook-signature']!.replace('v1,', 'v2,') };
          // Skews within a second of the 5-minute edge may fall either side between the two reads of the clock.
          fc.pre(Math.abs(Math.abs(skew) - 300) > 2);
          expect(await sdkAccepts(verifier, given, headers)).toBe(libraryAccepts(verifier, given, headers));
        },
      ),
      { numRuns: 300 },
    );
  });
});
