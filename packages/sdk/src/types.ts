/**
 * Types read off the generated `paths` (never off operation ids, which are names the document
 * may change): the query, body and success answer of a method of a path.
 */
import type { paths, webhooks } from './generated/openapi.js';

export type Path = keyof paths;
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The query parameters of GET `P`. */
export type Query<P extends Path> = Operation<P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON body `M P` takes. */
export type RequestBody<P extends Path, M extends Method> = Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The JSON answer of `M P` when it succeeds. */
export type Success<P extends Path, M extends Method> = Operation<P, M> extends { responses: infer R } ? JsonOf<R[SuccessStatus & keyof R]> : never;

/** One element of an array type. */
export type Item<A> = A extends readonly (infer T)[] ? T : never;

export type Link = Item<Success<'/api/links', 'get'>>;
export type Collection = Item<Success<'/api/collections', 'get'>>;
export type Tag = Item<Success<'/api/tags', 'get'>>;
export type Partner = Item<Success<'/api/partners', 'get'>>;
export type Customer = Item<Success<'/api/customers', 'get'>>;
/** A click, or with `groupBy` a row of totals. */
export type AnalyticsRow = Item<Success<'/api/analytics', 'get'>>;
/** A lead or a sale. */
export type TrackedEvent = Item<Success<'/api/events', 'get'>>;
export type Program = Success<'/api/program', 'get'>;
export type PartnerGroup = Item<Success<'/api/partner-groups', 'get'>>;
export type Commission = Item<Success<'/api/commissions', 'get'>>;
/**
 * A payout with its items. `total` and each item's `amount` are exact JSON integers that may
 * pass 2^53; the SDK reads answers with JSON.parse, so such a sum arrives as the nearest double
 * (compare with `Number.isSafeInteger`). The payout's CSV file writes every amount exactly.
 */
export type Payout = Success<'/api/payouts/{id}', 'get'>;
/** A payout as listed, without its items; `total` as in `Payout` (rounded past 2^53). */
export type PayoutSummary = Item<Success<'/api/payouts', 'get'>>;
export type PayoutItem = Item<Payout['items']>;
export type Webhook = Item<Success<'/api/webhooks', 'get'>>;
export type WebhookDelivery = Item<Success<'/api/webhooks/{id}/deliveries', 'get'>>;

/** An event as a webhook endpoint receives it (the document's `webhooks` object), told apart by `type`. */
export type WebhookEvent = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody: infer B } } ? JsonOf<B> : never;
}[keyof webhooks];
