/**
 * What the wiring may name of the redirect (it has no service operations: its decision is
 * resolve.ts and destination.ts, its hot path fast-path.ts).
 */
export type { RedirectDeps } from './answer.js';

/** How a request tells who the visitor is (address, trusted edge headers), for another module recording a click as a visit does (browser tracking). */
export { clientIp, countryFromHeader, isPrefetch, placeFromHeader } from './visit.js';
