-- Analytics at scale (issue 15): click records carry the UTM values the visitor was sent with
-- and what opened the link (`qr` or `link`); leads and sales carry their click's dimensions, so
-- grouping them never joins `clicks`; and per-period totals are kept in `analytics_rollups`,
-- written in the same transaction as the clicks and events they count.

ALTER TABLE clicks
  ADD COLUMN utm_source text,
  ADD COLUMN utm_medium text,
  ADD COLUMN utm_campaign text,
  ADD COLUMN utm_term text,
  ADD COLUMN utm_content text,
  ADD COLUMN trigger text NOT NULL DEFAULT 'link';

ALTER TABLE lead_events
  ADD COLUMN partner_id uuid,
  ADD COLUMN country text,
  ADD COLUMN device text,
  ADD COLUMN browser text,
  ADD COLUMN os text,
  ADD COLUMN referrer text,
  ADD COLUMN referrer_url text,
  ADD COLUMN utm_source text,
  ADD COLUMN utm_medium text,
  ADD COLUMN utm_campaign text,
  ADD COLUMN utm_term text,
  ADD COLUMN utm_content text,
  ADD COLUMN trigger text;

ALTER TABLE sale_events
  ADD COLUMN partner_id uuid,
  ADD COLUMN country text,
  ADD COLUMN device text,
  ADD COLUMN browser text,
  ADD COLUMN os text,
  ADD COLUMN referrer text,
  ADD COLUMN referrer_url text,
  ADD COLUMN utm_source text,
  ADD COLUMN utm_medium text,
  ADD COLUMN utm_campaign text,
  ADD COLUMN utm_term text,
  ADD COLUMN utm_content text,
  ADD COLUMN trigger text;

UPDATE lead_events e SET partner_id = c.partner_id, country = c.country, device = c.device, browser = c.browser, os = c.os,
  referrer = c.referrer, referrer_url = c.referrer_url, trigger = c.trigger
FROM clicks c WHERE c.id = e.click_id AND c.workspace_id = e.workspace_id;

UPDATE sale_events e SET partner_id = c.partner_id, country = c.country, device = c.device, browser = c.browser, os = c.os,
  referrer = c.referrer, referrer_url = c.referrer_url, trigger = c.trigger
FROM clicks c WHERE c.id = e.click_id AND c.workspace_id = e.workspace_id;

CREATE INDEX lead_events_partner_idx ON lead_events (workspace_id, partner_id, created_at) WHERE partner_id IS NOT NULL;
CREATE INDEX sale_events_partner_idx ON sale_events (workspace_id, partner_id, created_at) WHERE partner_id IS NOT NULL;

-- Totals of one period. `scope_id` is the workspace's id (the whole workspace) or a link's id;
-- `partner_id` is the click's partner in link rows, the zero UUID otherwise. `level` is the
-- period: 'q' a quarter hour, 'h' an hour, 'd' a UTC day, each starting at `bucket`. `dim` ''
-- is the total; other dims hold one value each. `slot` lets writers of several instances add
-- to different rows instead of queueing on one hot row; readers sum the slots.
CREATE TABLE analytics_rollups (
  workspace_id uuid NOT NULL,
  scope_id uuid NOT NULL,
  dim text COLLATE "C" NOT NULL,
  level "char" NOT NULL,
  bucket timestamptz NOT NULL,
  value text COLLATE "C" NOT NULL,
  partner_id uuid NOT NULL,
  slot smallint NOT NULL,
  clicks bigint NOT NULL DEFAULT 0,
  leads bigint NOT NULL DEFAULT 0,
  sales bigint NOT NULL DEFAULT 0,
  amount numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot)
) WITH (fillfactor = 70);
-- Byte order for dimension values (sorting and comparing them under a language's collation cost
-- several times more, and a rollup key needs no linguistic order); room left in each page so
-- that adding to a row can update it in place (a HOT update, no new index entries).
-- Scope, dimension and level are far from independent (a workspace's totals are a sliver of its
-- rows): without these statistics the planner guessed 60 times too many rows for a workspace's
-- hourly totals and scanned the whole table (195 ms instead of 5 ms at 200,000 clicks).
CREATE STATISTICS analytics_rollups_shape (mcv, dependencies) ON scope_id, dim, level FROM analytics_rollups;
-- A partner's clicks are the link rows carrying its id.
CREATE INDEX analytics_rollups_partner_idx ON analytics_rollups (workspace_id, partner_id, dim, level, bucket)
  WHERE partner_id <> '00000000-0000-0000-0000-000000000000';

-- Links busy enough to keep their dimensions in rollups, from `dims_from` (a UTC midnight) on.
-- Most links get a few clicks a day: for them a row per dimension value and day would cost
-- more than the clicks themselves (measured: 3.1 such rows per click at 2,000 links), and
-- their own clicks are few to read. A link's first day past HOT_LINK_CLICKS_PER_DAY (the click
-- writer) makes it hot from the next midnight, so every whole day is either all rollups or
-- all raw clicks, and readers know which.
CREATE TABLE analytics_hot_links (
  link_id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  dims_from timestamptz NOT NULL
);

-- The rows one click or event adds to, in one place for the click writer, event tracking and
-- the backfill below. The workspace keeps every dimension by hour and day and its total by
-- quarter hour too (time zones with 30/45-minute offsets), its dimensions by month as well (a
-- value seen every day of a year is 12 rows, not 365). A link keeps its total by hour and day,
-- and, when `link_dims` (a hot link, see above), its dimensions but referrer_url by day.
CREATE FUNCTION analytics_keys(
  ws uuid, link uuid, partner uuid, country text, device text, browser text, os text, referrer text, referrer_url text,
  utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text, trig text, link_dims boolean
) RETURNS TABLE (scope_id uuid, partner_id uuid, dim text, level "char", value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT s.scope_id, s.partner_id, d.dim, l.level, d.value
  FROM (VALUES (ws, '00000000-0000-0000-0000-000000000000'::uuid, true),
               (link, COALESCE(partner, '00000000-0000-0000-0000-000000000000'::uuid), false)) s(scope_id, partner_id, whole)
  CROSS JOIN (VALUES
      ('', ''),
      ('country', COALESCE(country, '(unknown)')),
      ('device', COALESCE(device, '(unknown)')),
      ('browser', COALESCE(browser, '(unknown)')),
      ('os', COALESCE(os, '(unknown)')),
      ('referrer', COALESCE(referrer, '(unknown)')),
      ('referrer_url', COALESCE(referrer_url, '(none)')),
      ('utm_source', COALESCE(utm_source, '(none)')),
      ('utm_medium', COALESCE(utm_medium, '(none)')),
      ('utm_campaign', COALESCE(utm_campaign, '(none)')),
      ('utm_term', COALESCE(utm_term, '(none)')),
      ('utm_content', COALESCE(utm_content, '(none)')),
      ('trigger', COALESCE(trig, 'link')),
      ('link', link::text),
      ('partner', COALESCE(partner::text, '(none)'))) d(dim, value)
  CROSS JOIN (VALUES ('q'::"char"), ('h'::"char"), ('d'::"char"), ('m'::"char")) l(level)
  WHERE CASE
    WHEN d.dim = '' THEN l.level <> 'm' AND (s.whole OR l.level <> 'q')
    WHEN s.whole THEN l.level <> 'q'
    WHEN d.dim IN ('link', 'partner', 'referrer_url') THEN false
    ELSE link_dims AND l.level = 'd'
  END
$$;

-- The start of the period of `level` that holds `at`, in UTC whatever the session's zone.
CREATE FUNCTION analytics_bucket(level "char", at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE level WHEN 'm' THEN date_trunc('month', at, 'UTC')
    ELSE date_bin(CASE level WHEN 'q' THEN interval '15 minutes' WHEN 'h' THEN interval '1 hour' ELSE interval '1 day' END,
                  at, timestamptz '2000-01-01 00:00:00+00') END
$$;

-- Everything recorded before this migration, counted once.
INSERT INTO analytics_rollups (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, leads, sales, amount)
SELECT workspace_id, k.scope_id, k.dim, k.level, analytics_bucket(k.level, at), k.value, k.partner_id, 0,
       sum(clicks), sum(leads), sum(sales), sum(amount)
FROM (
  SELECT workspace_id, link_id, partner_id, created_at AS at, country, device, browser, os, referrer, referrer_url,
         utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger, 1 AS clicks, 0 AS leads, 0 AS sales, 0::numeric AS amount
  FROM clicks WHERE NOT bot
  UNION ALL
  SELECT workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer, referrer_url,
         utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger, 0, 1, 0, 0
  FROM lead_events
  UNION ALL
  SELECT workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer, referrer_url,
         utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger, 0, 0, 1, amount
  FROM sale_events
) f
CROSS JOIN LATERAL analytics_keys(f.workspace_id, f.link_id, f.partner_id, f.country, f.device, f.browser, f.os, f.referrer,
  f.referrer_url, f.utm_source, f.utm_medium, f.utm_campaign, f.utm_term, f.utm_content, f.trigger, false) k
GROUP BY 1, 2, 3, 4, 5, 6, 7;
