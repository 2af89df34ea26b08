import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

/** The API error body (every error answers it): messages in both languages. */
export interface ApiError {
  error: { en: string; ar: string; code: string };
}

let workspaceId: string | undefined;
/** Workspace routes name their workspace in X-Workspace-Id when the session cookie is the credential. */
export function setWorkspace(id: string | undefined): void {
  workspaceId = id;
}

const withWorkspace: Middleware = {
  onRequest({ request }) {
    if (workspaceId && !request.headers.has('x-workspace-id')) request.headers.set('x-workspace-id', workspaceId);
    return request;
  },
};

// Same origin: the session cookie is sent, and counted, only on first-party requests.
export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(withWorkspace);

/** The message of an API error in the page's language, or a network failure's text. */
export function errorText(e: unknown, lang: 'en' | 'ar'): string {
  const body = e as Partial<ApiError> | undefined;
  if (body?.error?.en) return lang === 'ar' ? body.error.ar : body.error.en;
  return e instanceof Error ? e.message : String(e);
}

/**
 * The JSON answer of a list that also speaks CSV (format=csv): its document declares both
 * bodies, so the generated type is their union; without format=csv it is the JSON one.
 */
export function jsonList<T>(answer: Promise<{ data?: T | string; error?: unknown }>): Promise<{ data?: T; error?: unknown }> {
  return answer as Promise<{ data?: T; error?: unknown }>;
}
