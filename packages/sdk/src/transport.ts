/**
 * One HTTP call to the API with its retries. A read (GET) is retried on 429 (after
 * Retry-After), on 503 and when the server cannot be reached; a write only on 429, which the
 * server answers before reading the body: after a 503 or a lost connection a write may have
 * been stored, and the tracking endpoints count every accepted POST.
 */
import { errorFromResponse, networkError, type LinktrailError } from './error.js';

export interface LinktrailOptions {
  /** An API key (or a human or OAuth access token), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Where the service answers, e.g. `https://links.example.com`. */
  baseUrl: string;
  /** Retries of one call after its first attempt (default 3). */
  maxRetries?: number;
  /** The fetch to use (default: the platform's). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** How to wait between attempts (default: a timer); for tests and unusual platforms. */
  sleep?: (ms: number) => Promise<void>;
}

export type QueryValue = string | number | boolean | undefined | null;

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

const DEFAULT_RETRIES = 3;
/** Waits without a Retry-After: 0.5 s, 1 s, 2 s, … at most 8 s. */
const backoffMs = (attempt: number) => Math.min(8_000, 500 * 2 ** attempt);

export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: NonNullable<LinktrailOptions['fetch']>;
  private readonly sleep: NonNullable<LinktrailOptions['sleep']>;
  private readonly maxRetries: number;

  constructor(private readonly options: LinktrailOptions) {
    if (!options?.apiKey) throw new TypeError('Linktrail: apiKey is required');
    if (!options.baseUrl) throw new TypeError('Linktrail: baseUrl is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Called as a plain function: a browser's fetch throws when called on another object.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.maxRetries = options.maxRetries ?? DEFAULT_RETRIES;
  }

  /** The call's JSON answer, parsed with JSON.parse (an integer past 2^53 arrives rounded). */
  async send<T>(call: Call): Promise<T> {
    return (await readJson(await this.exchange(call, 'application/json'))) as T;
  }

  /** The call's answer as text (a file such as a payout's CSV), with its headers. */
  async download(call: Call, accept: string): Promise<{ text: string; headers: Headers }> {
    const res = await this.exchange(call, accept);
    try {
      return { text: await res.text(), headers: res.headers };
    } catch (cause) {
      throw networkError(cause);
    }
  }

  /** The first successful answer, after the retries; the error of the last attempt otherwise. */
  private async exchange(call: Call, accept: string): Promise<Response> {
    const url = this.url(call);
    const init: RequestInit = {
      method: call.method,
      headers: {
        authorization: `Bearer ${this.options.apiKey}`,
        accept,
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    };
    const read = call.method === 'GET';
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.maxRetries;
      let res: Response;
      try {
        res = await this.fetch(url, init);
      } catch (cause) {
        if (read && !last) {
          await this.sleep(backoffMs(attempt));
          continue;
        }
        throw networkError(cause);
      }
      if (res.ok) return res;
      const error = await errorFromResponse(res);
      if (last || !retryable(error, read)) throw error;
      await this.sleep(error.retryAfter !== undefined ? error.retryAfter * 1000 : backoffMs(attempt));
    }
  }

  private url(call: Call): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined && value !== null) params.append(name, String(value));
    const search = params.toString();
    return `${this.baseUrl}${call.path}${search ? `?${search}` : ''}`;
  }
}

function retryable(error: LinktrailError, read: boolean): boolean {
  return error.status === 429 || (read && error.status === 503);
}

async function readJson(res: Response): Promise<unknown> {
  try {
    const text = await res.text();
    return text === '' ? undefined : JSON.parse(text);
  } catch (cause) {
    throw networkError(cause);
  }
}
