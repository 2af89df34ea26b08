import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (standardwebhooks.com, operations.md §11). A secret is `whsec_` +
 * base64 of its key bytes; the signature of one attempt is `v1,` + base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` under those bytes. During a secret roll both the new
 * and the previous secret sign, space-separated, so a receiver holding either one verifies.
 */
export const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a secret: the bytes its base64 part decodes to. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('empty webhook secret');
  return key;
}

/** One `v1,<base64>` signature. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The webhook-signature header: one signature per active secret, space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signature(secret, id, timestamp, body)).join(' ');
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
  'user-agent': string;
  [name: string]: string;
}

/** The headers of one attempt; `timestamp` is this attempt's Unix seconds (a retry is signed anew). */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
    'content-type': 'application/json',
    'user-agent': 'Linktrail-Webhooks/1.0',
  };
}
