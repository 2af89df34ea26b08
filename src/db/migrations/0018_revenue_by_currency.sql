-- Money per currency (operations.md §14 "Money", issue 26). analytics_rollups add every sale's
-- amount into one `amount` whatever its currency (GET /api/analytics's saleAmount); this table
-- keeps the same totals with the currency as a key: the keys of analytics_rollups (scope,
-- dimension, level, bucket, value, partner, slot: see 0010) and the currency, a sale's count,
-- its amount net of refunds and the refunded part, in the sale's own period.
--
-- A table of its own rather than a currency column in the key of analytics_rollups: that key is
-- the conflict target of every rollup writer, so changing it would break the instances of the
-- previous version still running during a rolling upgrade (§17: a release's migrations only
-- add), and the click writer, which writes most rollup rows, has no currency to give.
-- analytics_rollups keep their sales and amount, written as before by every version.
CREATE TABLE analytics_revenue_rollups (
  workspace_id uuid NOT NULL,
  scope_id uuid NOT NULL,
  dim text COLLATE "C" NOT NULL,
  level "char" NOT NULL,
  bucket timestamptz NOT NULL,
  value text COLLATE "C" NOT NULL,
  partner_id uuid NOT NULL,
  -- Lower-case ISO 4217, as sale_events keep it.
  currency text COLLATE "C" NOT NULL,
  slot smallint NOT NULL,
  sales bigint NOT NULL DEFAULT 0,
  amount numeric NOT NULL DEFAULT 0,
  refunded numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot)
) WITH (fillfactor = 70);
-- As for analytics_rollups (0010): the planner's guesses per scope, dimension and level, and a
-- partner's rows by index.
CREATE STATISTICS analytics_revenue_rollups_shape (mcv, dependencies) ON scope_id, dim, level FROM analytics_revenue_rollups;
CREATE INDEX analytics_revenue_rollups_partner_idx ON analytics_revenue_rollups (workspace_id, partner_id, dim, level, bucket)
  WHERE partner_id <> '00000000-0000-0000-0000-000000000000';

-- Every sale recorded before this migration, counted once under the keys its analytics_rollups
-- rows got when it was recorded: a hot link's dimensions from its dims_from on and its referrer
-- URLs from its urls_from on (both fixed once set, so they answer today as they did then), and
-- its refunds in its own period. Sales are never deleted, so the amounts here add up, key by
-- key, to the amount analytics_rollups hold (test/db/revenue-by-currency.test.ts checks it).
-- A sale recorded by an instance of the previous version after this runs, during a rolling
-- upgrade, counts in saleAmount but has no row here.
INSERT INTO analytics_revenue_rollups (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot, sales, amount, refunded)
SELECT s.workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, s.created_at), k.value, k.partner_id, s.currency, 0,
       count(*), sum(s.amount - s.refunded_amount), sum(s.refunded_amount)
FROM sale_events s
LEFT JOIN analytics_hot_links h ON h.link_id = s.link_id
CROSS JOIN LATERAL analytics_keys(s.workspace_id, s.link_id, s.partner_id, s.country, s.device, s.browser, s.os, s.referrer,
  s.referrer_url, s.utm_source, s.utm_medium, s.utm_campaign, s.utm_term, s.utm_content, s.trigger,
  (s.created_at >= h.dims_from) IS TRUE, (s.created_at >= h.urls_from) IS TRUE) k
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
