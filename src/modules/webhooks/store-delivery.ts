import { sql, type SQL } from 'drizzle-orm';
import { rows, type Conn } from '../../db/connect.js';
import { storedEventBody, storedEventClick } from './store-outbox.js';

/*
 * The SQL of webhook delivery (operations.md §11). The states of a webhook_deliveries row, as
 * the delivery worker (delivery.ts) and the endpoints API (retry, recover) both read them:
 *
 *   pending, next_attempt_at <= now(), locked_until null or past  → due: any instance may claim it
 *   pending, next_attempt_at in the future                          → waiting for its next attempt
 *   pending, locked_until in the future                             → an attempt is under way (a
 *       lease: one instance holds it; if that instance dies, the lease runs out and the attempt
 *       is taken again, with the same attempt number — `attempts` counts finished attempts)
 *   succeeded                                                       → a 2xx came back; final
 *   failed                                                          → every retry was used, the
 *       receiver answered 410, or the endpoint was disabled or deleted while it waited
 *       (last_error says which); final until the API sends it again
 *
 * To send a delivery again (retry, recover), the API sets status = 'pending' and
 * next_attempt_at = now(), and leaves attempts and locked_until alone: a retried delivery
 * whose attempt is under way is not taken twice, and its retries continue the schedule after
 * `attempts` (a delivery that had used all its retries gets one more attempt, then fails).
 * Deliveries of a disabled or deleted endpoint are never attempted: the housekeeping marks the
 * pending ones failed ('endpoint disabled' / 'endpoint deleted'), so recovering them after the
 * endpoint is enabled again sends them.
 *
 * Times here are the database's (now()), one clock for every instance: the due time, leases,
 * failing_since and the 30 days kept.
 */

/** One claimed attempt: what to send, where, and with which secrets. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  workspaceId: string;
  eventId: string;
  /** Attempts finished before this one. */
  attempts: number;
  /** The exact JSON to send; null when sealed (below), or for a link.clicked event whose click is no longer stored. */
  body: string | null;
  /** The JSON to send, sealed ('webhook-body'): the event's record holds a secret. */
  bodySealed: string | null;
  url: string;
  secretSealed: string;
  /** The secret before a roll, while it still signs beside the new one. */
  previousSecretSealed: string | null;
}

export interface ClaimLimits {
  /** At most this many deliveries (the instance's free slots). */
  limit: number;
  /** At most this many leases live per endpoint, across instances. */
  perEndpoint: number;
  /** At most this many attempts of one workspace in flight on this instance (fairness). */
  perWorkspace: number;
  /** This instance's attempts in flight, by workspace id. */
  busy: ReadonlyMap<string, number>;
  /** The lease: the attempt's timeout plus a margin. */
  leaseMs: number;
}

const DUE = sql`d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until <= now())`;

/** The places a workspace has left on this instance: perWorkspace minus its attempts in flight. */
const placesLeft = (o: ClaimLimits, workspace: SQL) =>
  sql`(${o.perWorkspace}::int - coalesce((${JSON.stringify(Object.fromEntries(o.busy))}::jsonb ->> ${workspace}::text)::int, 0))`;

/**
 * Claims due deliveries in one short transaction, and commits before any is sent. First the
 * endpoints with due deliveries are locked (FOR NO KEY UPDATE SKIP LOCKED: an endpoint another
 * instance is claiming for is left to it this round, and the outbox's inserts, which only
 * take KEY SHARE, are not blocked); then, in a second statement whose snapshot follows the
 * locks, each endpoint's live leases are counted and at most `perEndpoint` minus those are
 * leased. So two instances never exceed the per-endpoint cap together.
 *
 * Fair between workspaces (issue 41 M4): both statements take turns — each workspace's first
 * endpoint (delivery), then each one's second, and so on — and a workspace gets no more than
 * its places left on this instance, so one whose receivers hang holds at most `perWorkspace`
 * slots and the others' deliveries are claimed beside its backlog.
 */
export function claimDueDeliveries(conn: Conn, o: ClaimLimits): Promise<ClaimedDelivery[]> {
  return conn.transaction((tx) => claimWithin(tx, o));
}

/** claimDueDeliveries in a transaction already open (the worker's, which records outcomes first). */
export async function claimWithin(tx: Conn, o: ClaimLimits): Promise<ClaimedDelivery[]> {
  // The claim's estimated cost (a LIMIT per endpoint over a large backlog) crosses PostgreSQL's
  // JIT threshold, and compiling took ~450 ms of a claim that runs in under 1 ms: delivery fell
  // to ~20 a second with a million deliveries queued.
  await tx.execute(sql`SET LOCAL jit = off`);
  const endpoints = await rows<{ id: string }>(
    tx,
    sql`WITH ready AS (
            SELECT e.id, e.workspace_id, row_number() OVER (PARTITION BY e.workspace_id ORDER BY random()) AS turn
            FROM webhook_endpoints e
            WHERE NOT e.disabled AND e.deleted_at IS NULL
              -- A subquery per endpoint (an index probe), not EXISTS: the planner made that a
              -- semi-join over every pending delivery (a seq scan of a backlog per claim).
              AND (SELECT true FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND ${DUE} ORDER BY d.next_attempt_at LIMIT 1))
          SELECT e.id FROM ready r JOIN webhook_endpoints e ON e.id = r.id
          WHERE NOT e.disabled AND e.deleted_at IS NULL AND r.turn <= ${placesLeft(o, sql`r.workspace_id`)}
          ORDER BY r.turn, random() LIMIT ${Math.max(o.limit, 1)}
          FOR NO KEY UPDATE OF e SKIP LOCKED`,
  );
  if (endpoints.length === 0) return [];
  return rows<ClaimedDelivery>(
    tx,
    sql`WITH ep AS (SELECT value::uuid AS id FROM jsonb_array_elements_text(${JSON.stringify(endpoints.map((e) => e.id))}::jsonb)),
          due AS (
            SELECT c.* FROM ep
            CROSS JOIN LATERAL (
              SELECT count(*)::int AS n FROM webhook_deliveries l
              WHERE l.endpoint_id = ep.id AND l.status = 'pending' AND l.locked_until > now()) live
            CROSS JOIN LATERAL (
              SELECT d.id, d.workspace_id, d.next_attempt_at, row_number() OVER (ORDER BY d.next_attempt_at) AS endpoint_turn
              FROM webhook_deliveries d
              WHERE d.endpoint_id = ep.id AND ${DUE}
              ORDER BY d.next_attempt_at LIMIT greatest(0, ${o.perEndpoint}::int - live.n)) c),
          turns AS (
            SELECT id, workspace_id, next_attempt_at,
              row_number() OVER (PARTITION BY workspace_id ORDER BY endpoint_turn, next_attempt_at) AS turn
            FROM due),
          chosen AS (
            SELECT id FROM turns WHERE turn <= ${placesLeft(o, sql`turns.workspace_id`)}
            ORDER BY turn, next_attempt_at LIMIT ${o.limit}::int)
          UPDATE webhook_deliveries d SET locked_until = now() + ${o.leaseMs}::int * interval '1 millisecond'
          FROM chosen, webhook_events ev ${storedEventClick}, webhook_endpoints e
          WHERE d.id = chosen.id AND ev.id = d.event_id AND e.id = d.endpoint_id
          RETURNING d.id, d.endpoint_id AS "endpointId", d.workspace_id AS "workspaceId", d.event_id AS "eventId",
            d.attempts, ${storedEventBody} AS body, ev.body_sealed AS "bodySealed", e.url, e.secret_sealed AS "secretSealed",
            CASE WHEN e.previous_secret_until > now() THEN e.previous_secret_sealed END AS "previousSecretSealed"`,
  );
}

/** What one attempt brought back (see post.ts), and what follows it (schedule.ts). */
export interface AttemptOutcome {
  id: string;
  /** `attempts` as claimed: an outcome recorded by another instance since is not overwritten. */
  claimedAttempts: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
  /** How long before the recording the attempt began (outcomes wait for the next claim). */
  startedAgoMs: number;
  /** 'retry' waits retryInMs for the next attempt; 'failed' is final; 'gone' (a 410) fails it and disables the endpoint. */
  next: { kind: 'succeeded' } | { kind: 'retry'; inMs: number } | { kind: 'failed' } | { kind: 'gone' };
}

/** An endpoint a failure disabled, and why. */
export interface DisabledEndpoint {
  id: string;
  workspaceId: string;
  url: string;
  reason: 'gone' | 'failing';
}

/** The outcomes as a row source `a` (one parameter, whatever their number). */
function outcomeRows(outcomes: readonly AttemptOutcome[]): SQL {
  const list = outcomes.map((o) => ({
    id: o.id,
    attempts: o.claimedAttempts,
    status_code: o.statusCode,
    error: o.error,
    duration_ms: o.durationMs,
    response: o.response,
    ago_ms: Math.round(o.startedAgoMs),
    retry_in_ms: o.next.kind === 'retry' ? Math.round(o.next.inMs) : null,
    gone: o.next.kind === 'gone',
  }));
  return sql`SELECT * FROM jsonb_to_recordset(${JSON.stringify(list)}::jsonb)
    AS a(id uuid, attempts int, status_code int, error text, duration_ms int, response text, ago_ms int, retry_in_ms bigint, gone boolean)`;
}

/** The delivery is `a`'s and still where the claim left it: an outcome another instance recorded since stays. */
const LAST_FIELDS = sql`attempts = d.attempts + 1, locked_until = NULL, last_attempt_at = now() - a.ago_ms * interval '1 millisecond',
  last_status_code = a.status_code, last_error = a.error, last_duration_ms = a.duration_ms, last_response = a.response
  FROM a WHERE d.id = a.id AND d.status = 'pending' AND d.attempts = a.attempts`;

/**
 * Records finished attempts, in two statements whatever their number (pass the claim's
 * transaction: one commit for a claim and the outcomes before it). Failures: the delivery waits
 * for its retry, or is failed; its endpoint is failing since its first failure, disabled at once
 * on a 410 (`gone`) or once failing for 5 days. Then successes: the delivery succeeded and its
 * endpoint is no longer failing (after the failures, so a success among them clears the state).
 * Answers the endpoints this disabled.
 */
export async function recordOutcomes(conn: Conn, outcomes: readonly AttemptOutcome[]): Promise<DisabledEndpoint[]> {
  const failures = outcomes.filter((o) => o.next.kind !== 'succeeded');
  const successes = outcomes.filter((o) => o.next.kind === 'succeeded');
  const disabled =
    failures.length === 0
      ? []
      : await rows<DisabledEndpoint & { reason: DisabledEndpoint['reason'] | null }>(
          conn,
          sql`WITH a AS (${outcomeRows(failures)}),
            done AS (
              UPDATE webhook_deliveries d SET
                status = CASE WHEN a.retry_in_ms IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = now() + a.retry_in_ms * interval '1 millisecond',
                ${LAST_FIELDS}
              RETURNING d.endpoint_id, a.gone),
            hit AS (SELECT endpoint_id, bool_or(gone) AS gone FROM done GROUP BY endpoint_id),
            verdict AS (
              SELECT e.id, CASE WHEN e.disabled THEN NULL WHEN hit.gone THEN 'gone'
                WHEN e.failing_since <= now() - interval '5 days' THEN 'failing' END AS reason
              FROM webhook_endpoints e JOIN hit ON hit.endpoint_id = e.id)
            UPDATE webhook_endpoints e SET
              failing_since = coalesce(e.failing_since, now()),
              disabled = e.disabled OR v.reason IS NOT NULL,
              disabled_reason = coalesce(v.reason, e.disabled_reason),
              disabled_at = CASE WHEN v.reason IS NULL THEN e.disabled_at ELSE now() END,
              updated_at = CASE WHEN v.reason IS NULL THEN e.updated_at ELSE now() END
            -- Failing already and not disabled now: the row stays as it is (no new version of it per
            -- failure, no lock that a claim's SKIP LOCKED would step around).
            FROM verdict v WHERE e.id = v.id AND (e.failing_since IS NULL OR v.reason IS NOT NULL)
            RETURNING e.id, e.workspace_id AS "workspaceId", e.url, v.reason`,
        );
  if (successes.length > 0) {
    await conn.execute(sql`WITH a AS (${outcomeRows(successes)}),
      done AS (UPDATE webhook_deliveries d SET status = 'succeeded', next_attempt_at = NULL, ${LAST_FIELDS} RETURNING d.endpoint_id)
      UPDATE webhook_endpoints e SET failing_since = NULL FROM (SELECT DISTINCT endpoint_id FROM done) x
      WHERE e.id = x.endpoint_id AND e.failing_since IS NOT NULL`);
  }
  return disabled.filter((d): d is DisabledEndpoint => d.reason !== null);
}

/** Attempts abandoned (or never started) by an instance shutting down: due again at once, not counted. */
export async function releaseLeases(conn: Conn, claimed: readonly Pick<ClaimedDelivery, 'id' | 'attempts'>[]): Promise<void> {
  if (claimed.length === 0) return;
  const list = JSON.stringify(claimed.map((c) => ({ id: c.id, attempts: c.attempts })));
  await conn.execute(sql`UPDATE webhook_deliveries d SET locked_until = NULL
    FROM jsonb_to_recordset(${list}::jsonb) AS c(id uuid, attempts int)
    WHERE d.id = c.id AND d.status = 'pending' AND d.attempts = c.attempts`);
}

/** Taken by one instance at a time (pg_try_advisory_xact_lock); beside migrations' and clicks'. */
const HOUSEKEEPING_LOCK_ID = 7_130_024;
const KEPT = sql`interval '30 days'`;

export interface HousekeepingReport {
  /** False when another instance was at it. */
  ran: boolean;
  failedForDisabledEndpoints: number;
  deletedDeliveries: number;
  deletedEvents: number;
}

/**
 * One bounded run: the pending deliveries of disabled or deleted endpoints are failed, then the
 * deliveries and events older than 30 days that are not pending are deleted, `batch` rows a
 * statement and at most `maxBatches` statements each (the next run takes the rest).
 */
export function keepDeliveries(conn: Conn, o: { batch: number; maxBatches: number }): Promise<HousekeepingReport> {
  return conn.transaction(async (tx) => {
    const report: HousekeepingReport = { ran: false, failedForDisabledEndpoints: 0, deletedDeliveries: 0, deletedEvents: 0 };
    const [lock] = await rows<{ got: boolean }>(tx, sql`SELECT pg_try_advisory_xact_lock(${HOUSEKEEPING_LOCK_ID}) AS got`);
    if (!lock?.got) return report;
    report.ran = true;
    report.failedForDisabledEndpoints = await batches(o, () =>
      count(
        tx,
        sql`WITH stale AS (
            SELECT d.id, CASE WHEN e.deleted_at IS NOT NULL THEN 'endpoint deleted' ELSE 'endpoint disabled' END AS why
            FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.status = 'pending' AND (e.disabled OR e.deleted_at IS NOT NULL) AND (d.locked_until IS NULL OR d.locked_until <= now())
            LIMIT ${o.batch}::int)
          UPDATE webhook_deliveries d SET status = 'failed', next_attempt_at = NULL, last_error = stale.why
          FROM stale WHERE d.id = stale.id RETURNING 1`,
      ),
    );
    report.deletedDeliveries = await batches(o, () =>
      count(
        tx,
        sql`DELETE FROM webhook_deliveries WHERE id IN (
            SELECT id FROM webhook_deliveries WHERE created_at < now() - ${KEPT} AND status <> 'pending'
              AND (last_attempt_at IS NULL OR last_attempt_at < now() - ${KEPT})
            LIMIT ${o.batch}::int) RETURNING 1`,
      ),
    );
    report.deletedEvents = await batches(o, () =>
      count(
        tx,
        sql`DELETE FROM webhook_events WHERE id IN (
            SELECT ev.id FROM webhook_events ev WHERE ev.created_at < now() - ${KEPT}
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND (d.status = 'pending' OR d.last_attempt_at >= now() - ${KEPT}))
            LIMIT ${o.batch}::int) RETURNING 1`,
      ),
    );
    return report;
  });
}

async function count(conn: Conn, statement: SQL): Promise<number> {
  const [row] = await rows<{ n: number }>(conn, sql`WITH touched AS (${statement}) SELECT count(*)::int AS n FROM touched`);
  return row?.n ?? 0;
}

/** Repeats a batch statement until it touches fewer than a batch, at most maxBatches times. */
async function batches(o: { batch: number; maxBatches: number }, run: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < o.maxBatches; i++) {
    const n = await run();
    total += n;
    if (n < o.batch) break;
  }
  return total;
}
