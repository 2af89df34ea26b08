-- Places and visitors (operations.md §14 "Places" and "Funnel").
--
-- Places: a click's region and city, from trusted edge headers (REGION_HEADER, CITY_HEADER) or
-- the operator's city database (GEOIP_CITY_DB), each stored as "<name>, <country code>" so that
-- equally named places of different countries stay apart. Leads and sales carry them like the
-- click's other dimensions. They are kept in rollups for the workspace as a whole only.
ALTER TABLE clicks
  ADD COLUMN region text,
  ADD COLUMN city text,
  -- Whether this click was its visitor's first of the UTC day: bit 1 in its workspace, bit 2 on
  -- its link (see visitor_days). Raw reads count visitors from it as rollups do.
  ADD COLUMN visitor_flags smallint NOT NULL DEFAULT 0;
ALTER TABLE lead_events ADD COLUMN region text, ADD COLUMN city text;
ALTER TABLE sale_events ADD COLUMN region text, ADD COLUMN city text;

-- Visitors of each rollup row: the visitors whose first click of the UTC day (in the scope:
-- the workspace or the link) falls in that row, so that a range's sum is its visitor-days.
ALTER TABLE analytics_rollups ADD COLUMN visitors bigint NOT NULL DEFAULT 0;

-- One random salt per UTC day, shared by every instance (the first to need it inserts it). A
-- visitor is HMAC-SHA-256(salt, address + user agent) truncated to 64 bits; the salt of a past
-- day is deleted by the clicks maintenance job, after which no hash can be tied to an address.
CREATE TABLE visitor_salts (
  day date PRIMARY KEY,
  salt bytea NOT NULL
);

-- The visitors seen on a UTC day, per workspace (scope_id = workspace_id) and per link: the
-- click writer's insert … ON CONFLICT DO NOTHING tells whether a click is its visitor's first
-- of the day there. Rows of past days are deleted with their day's salt. No address is kept.
CREATE TABLE visitor_days (
  workspace_id uuid NOT NULL,
  day date NOT NULL,
  scope_id uuid NOT NULL,
  hash bigint NOT NULL,
  PRIMARY KEY (workspace_id, day, scope_id, hash)
);

-- analytics_keys() of 0012 and the workspace's region and city (never a link's): hours, days
-- and months, like the workspace's other dimensions. The 17-argument form stays for instances
-- of the previous version until they stop.
CREATE FUNCTION analytics_keys(
  ws uuid, link uuid, partner uuid, country text, device text, browser text, os text, referrer text, referrer_url text,
  utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text, trig text, link_dims boolean, link_urls boolean,
  region text, city text
) RETURNS TABLE (scope_id uuid, partner_id uuid, dim text, level "char", value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT * FROM analytics_keys(ws, link, partner, country, device, browser, os, referrer, referrer_url,
    utm_source, utm_medium, utm_campaign, utm_term, utm_content, trig, link_dims, link_urls)
  UNION ALL
  SELECT ws, '00000000-0000-0000-0000-000000000000'::uuid, d.dim, l.level, d.value
  FROM (VALUES ('region', COALESCE(region, '(unknown)')), ('city', COALESCE(city, '(unknown)'))) d(dim, value)
  CROSS JOIN (VALUES ('h'::"char"), ('d'::"char"), ('m'::"char")) l(level)
$$;

-- Everything recorded before this migration has no place: counted once under '(unknown)', so
-- that a workspace's region and city rows add up to its totals like its other dimensions.
INSERT INTO analytics_rollups (workspace_id, scope_id, dim, level, bucket, value, partner_id, slot, clicks, leads, sales, amount)
SELECT workspace_id, scope_id, d.dim, level, bucket, '(unknown)', partner_id, 0, sum(clicks), sum(leads), sum(sales), sum(amount)
FROM analytics_rollups r CROSS JOIN (VALUES ('region'), ('city')) d(dim)
WHERE r.scope_id = r.workspace_id AND r.dim = 'country' AND r.level IN ('h', 'd', 'm')
GROUP BY 1, 2, 3, 4, 5, 7;
INSERT INTO analytics_revenue_rollups (workspace_id, scope_id, dim, level, bucket, value, partner_id, currency, slot, sales, amount, refunded)
SELECT workspace_id, scope_id, d.dim, level, bucket, '(unknown)', partner_id, currency, 0, sum(sales), sum(amount), sum(refunded)
FROM analytics_revenue_rollups r CROSS JOIN (VALUES ('region'), ('city')) d(dim)
WHERE r.scope_id = r.workspace_id AND r.dim = 'country' AND r.level IN ('h', 'd', 'm')
GROUP BY 1, 2, 3, 4, 5, 7, 8;
