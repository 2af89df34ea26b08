/**
 * Verification of a webhook as the `standardwebhooks` package does it, on WebCrypto alone:
 * the secret is `whsec_` + base64 of the HMAC key; `webhook-signature` holds space-separated
 * `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` (one per active
 * secret); the timestamp must be within 5 minutes of now. Verify the body exactly as it
 * arrived, before any JSON parsing.
 */
import { LinktrailError } from './error.js';
import type { WebhookEvent } from './types.js';

const PREFIX = 'whsec_';
const TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

function fail(code: string, en: string, ar: string): LinktrailError {
  return new LinktrailError({ status: 0, code, en, ar });
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function encodeBase64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function expectedSignature(secret: string, signed: Uint8Array<ArrayBuffer>): Promise<string> {
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = decodeBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
  } catch {
    throw new TypeError('verifyWebhook: the secret is not base64 (whsec_…)');
  }
  if (key.length === 0) throw new TypeError("verifyWebhook: the secret can't be empty");
  const hmac = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return encodeBase64(await crypto.subtle.sign('HMAC', hmac, signed));
}

function checkTimestamp(text: string, nowSeconds: number): number {
  // parseInt, as the standardwebhooks package reads it.
  const timestamp = parseInt(text, 10);
  if (Number.isNaN(timestamp)) throw fail('webhook_invalid_headers', 'Invalid webhook-timestamp header.', 'ترويسة webhook-timestamp غير صالحة.');
  if (nowSeconds - timestamp > TOLERANCE_SECONDS) throw fail('webhook_timestamp_too_old', 'Message timestamp too old.', 'طابع وقت الرسالة قديم جدًا.');
  if (timestamp > nowSeconds + TOLERANCE_SECONDS) throw fail('webhook_timestamp_too_new', 'Message timestamp too new.', 'طابع وقت الرسالة في المستقبل البعيد.');
  return timestamp;
}

/**
 * The event a webhook carries, once its signature is verified with `secret` (or any of
 * several, while a rolled secret is being replaced). Throws a LinktrailError (status 0,
 * code `webhook_*`) when headers are missing, the timestamp is more than 5 minutes from now,
 * or no `v1` signature matches. `payload` is the raw body, as text or bytes.
 */
export async function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
): Promise<WebhookEvent> {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampText || !signatures) throw fail('webhook_missing_headers', 'Missing required webhook headers.', 'ترويسات الويب هوك المطلوبة ناقصة.');
  const timestamp = checkTimestamp(timestampText, Math.floor(Date.now() / 1000));
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const given = signatures.split(' ').flatMap((s) => {
    const [version, signature] = s.split(',');
    return version === 'v1' && signature !== undefined ? [signature] : [];
  });
  for (const one of typeof secret === 'string' ? [secret] : secret) {
    const expected = await expectedSignature(one, signed);
    if (given.some((signature) => sameText(signature, expected))) return (body === '' ? undefined : JSON.parse(body)) as WebhookEvent;
  }
  throw fail('webhook_signature_mismatch', 'No matching webhook signature found.', 'لم يُعثر على توقيع مطابق للويب هوك.');
}
