/** The relying party (operations.md §15): its id is the host of BASE_URL, its origin BASE_URL's. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingParty(baseUrl: string): RelyingParty {
  const url = new URL(baseUrl);
  return { id: url.hostname, origin: url.origin, name: 'Linktrail' };
}

/** How long a challenge may be answered: the browser's own timeout is 2 minutes. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const CEREMONY_TIMEOUT_MS = 120_000;

/**
 * The challenge the browser signed, read from clientDataJSON to find the one we handed out
 * (the library checks it again); undefined when the response is not readable.
 */
export function signedChallenge(clientDataJSON: string): string | undefined {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 512 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The WebAuthn user handle of an account: its uuid's 16 bytes (no e-mail, nothing personal). */
export const userHandle = (userId: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
export const userHandleText = (userId: string): string => Buffer.from(userHandle(userId)).toString('base64url');
