-- A hot link's referrer URLs in rollups too (issue 15). Until now they were the one breakdown
-- grouped from a link's raw clicks, so they cost what its history costs (1.3 s for a link of
-- 1.4 M clicks). From `urls_from` on, a hot link keeps them by day and by month (a busy link
-- has thousands of distinct URLs a day: a year of them read by day would be a million rows).
--
-- Links already hot start at the next midnight at least an hour away, as a link turning hot
-- does (click-writer batches in flight meanwhile have no URL rows); their earlier days stay raw.
-- A link marked hot by an instance still running the previous version gets no urls_from
-- (NULL): its referrer URLs are read raw, as before, rather than counted from a day whose
-- clicks were partly written without them.
ALTER TABLE analytics_hot_links ADD COLUMN urls_from timestamptz;
UPDATE analytics_hot_links SET urls_from = GREATEST(dims_from, analytics_bucket('d', now() + interval '1 hour') + interval '1 day');

-- analytics_keys() of 0010 and, when `link_urls` (the click's day is past its link's urls_from),
-- the link's referrer URL by day and month. The 16-argument form keeps no link referrer URLs, so
-- the two never overlap; it stays for instances of the previous version until they stop.
CREATE FUNCTION analytics_keys(
  ws uuid, link uuid, partner uuid, country text, device text, browser text, os text, referrer text, referrer_url text,
  utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text, trig text, link_dims boolean, link_urls boolean
) RETURNS TABLE (scope_id uuid, partner_id uuid, dim text, level "char", value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT * FROM analytics_keys(ws, link, partner, country, device, browser, os, referrer, referrer_url,
    utm_source, utm_medium, utm_campaign, utm_term, utm_content, trig, link_dims)
  UNION ALL
  SELECT link, COALESCE(partner, '00000000-0000-0000-0000-000000000000'::uuid), 'referrer_url', l.level, COALESCE(referrer_url, '(none)')
  FROM (VALUES ('d'::"char"), ('m'::"char")) l(level)
  WHERE link_urls
$$;
