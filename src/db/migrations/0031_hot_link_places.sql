-- A hot link's regions and cities in rollups too (issue 30). Until now a link's region and city
-- were read from its raw clicks, so they cost what its history costs (the busiest link of the
-- 10 M-click bench, 1.4 M clicks: 3.7 s). From `places_from` on, a hot link keeps them by day and
-- by month, as its referrer URLs (migration 0012).
--
-- Links already hot start at the next midnight at least an hour away (click-writer batches in
-- flight meanwhile have no place rows); their earlier days stay raw. A link marked hot by an
-- instance still running the previous version gets no places_from (NULL): its places are read
-- raw, as before.
ALTER TABLE analytics_hot_links ADD COLUMN places_from timestamptz;
UPDATE analytics_hot_links SET places_from = GREATEST(dims_from, analytics_bucket('d', now() + interval '1 hour') + interval '1 day');

-- analytics_keys() of 0021 and, when `link_places` (the click's day is past its link's
-- places_from), the link's region and city by day and month. The 19-argument form keeps no link
-- places, so the two never overlap; it stays for instances of the previous version until they stop.
CREATE FUNCTION analytics_keys(
  ws uuid, link uuid, partner uuid, country text, device text, browser text, os text, referrer text, referrer_url text,
  utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text, trig text, link_dims boolean, link_urls boolean,
  region text, city text, link_places boolean
) RETURNS TABLE (scope_id uuid, partner_id uuid, dim text, level "char", value text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT * FROM analytics_keys(ws, link, partner, country, device, browser, os, referrer, referrer_url,
    utm_source, utm_medium, utm_campaign, utm_term, utm_content, trig, link_dims, link_urls, region, city)
  UNION ALL
  SELECT link, COALESCE(partner, '00000000-0000-0000-0000-000000000000'::uuid), d.dim, l.level, d.value
  FROM (VALUES ('region', COALESCE(region, '(unknown)')), ('city', COALESCE(city, '(unknown)'))) d(dim, value)
  CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) l(level)
  WHERE link_places
$$;
