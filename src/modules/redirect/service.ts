/**
 * What the wiring may name of the redirect (it has no service operations: its decision is
 * resolve.ts and destination.ts, its hot path fast-path.ts).
 */
export type { RedirectDeps } from './answer.js';
