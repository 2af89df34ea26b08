-- Clicks by month (issue 15). On PostgreSQL `clicks` becomes a table range-partitioned by
-- created_at, one partition per UTC month named clicks_pYYYY_MM plus clicks_default for any
-- timestamp no monthly partition covers, so no click is ever refused. The service keeps the
-- current month and the next two ready and drops whole months past CLICK_RETENTION_MONTHS
-- (src/modules/redirect/click-partitions.ts); analytics_rollups keep their counts.
--
-- PGlite keeps the one table: it serves a single process on one machine, where a table is
-- small enough that dropping a month buys nothing over deleting its rows, and every partition
-- would be more files and more work at each start for the embedded engine. There retention
-- deletes old rows in batches instead. migrate.ts tells the engine in linktrail.engine.
--
-- seq stays an identity column of the parent. PostgreSQL 15 and 16 give partitions no
-- identity of their own (17 shares the parent's): rows must be inserted through `clicks`,
-- as every writer here does, never into a partition directly (seq would be NULL there).
-- The parent's sequence goes on from the old one, so seq keeps increasing across the change.
--
-- The conversion copies every row (the old table is locked against writes meanwhile, reads
-- go on) and builds the primary key and the three partial indexes after the copy, on every
-- partition at once; existing months get their partitions, gaps in the history do not.
DO $$
DECLARE
  month timestamptz;
  next_seq bigint;
BEGIN
  IF current_setting('linktrail.engine', true) IS DISTINCT FROM 'postgres' THEN
    RETURN;
  END IF;
  -- Month arithmetic in UTC whatever the server's zone (local to this transaction).
  PERFORM set_config('TimeZone', 'UTC', true);
  LOCK TABLE clicks IN EXCLUSIVE MODE;

  CREATE TABLE clicks_partitioned (
    id uuid NOT NULL,
    workspace_id uuid NOT NULL,
    link_id uuid NOT NULL,
    partner_id uuid,
    created_at timestamptz NOT NULL,
    country text,
    device text NOT NULL,
    browser text,
    os text,
    referrer text NOT NULL,
    referrer_url text,
    bot boolean NOT NULL DEFAULT false,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    utm_source text,
    utm_medium text,
    utm_campaign text,
    utm_term text,
    utm_content text,
    trigger text NOT NULL DEFAULT 'link'
  ) PARTITION BY RANGE (created_at);

  FOR month IN
    SELECT DISTINCT date_trunc('month', created_at) FROM clicks
    UNION
    SELECT date_trunc('month', now()) + make_interval(months => k) FROM generate_series(0, 2) k
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF clicks_partitioned FOR VALUES FROM (%L) TO (%L)',
      to_char(month, '"clicks_p"YYYY"_"MM'), month, month + interval '1 month');
  END LOOP;
  CREATE TABLE clicks_default PARTITION OF clicks_partitioned DEFAULT;

  INSERT INTO clicks_partitioned (id, workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer,
    referrer_url, bot, seq, utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger)
  OVERRIDING SYSTEM VALUE
  SELECT id, workspace_id, link_id, partner_id, created_at, country, device, browser, os, referrer,
    referrer_url, bot, seq, utm_source, utm_medium, utm_campaign, utm_term, utm_content, trigger
  FROM clicks;

  -- Past every seq handed out, stored or not (a rolled-back batch used some too).
  SELECT GREATEST(COALESCE(max(seq), 0), COALESCE(pg_sequence_last_value(pg_get_serial_sequence('clicks', 'seq')::regclass), 0)) + 1
  INTO next_seq FROM clicks;

  DROP TABLE clicks;
  ALTER TABLE clicks_partitioned RENAME TO clicks;
  EXECUTE format('ALTER SEQUENCE %s RENAME TO clicks_seq_seq', pg_get_serial_sequence('clicks', 'seq'));
  EXECUTE format('ALTER TABLE clicks ALTER COLUMN seq RESTART WITH %s', next_seq);

  ALTER TABLE clicks ADD PRIMARY KEY (id, created_at);
  CREATE INDEX clicks_list_idx ON clicks (workspace_id, created_at, seq) WHERE NOT bot;
  CREATE INDEX clicks_link_idx ON clicks (workspace_id, link_id, created_at) WHERE NOT bot;
  CREATE INDEX clicks_partner_idx ON clicks (workspace_id, partner_id, created_at) WHERE NOT bot AND partner_id IS NOT NULL;
  -- Autovacuum analyzes the partitions but never the parent, whose statistics plans over
  -- several months use.
  ANALYZE clicks;
END
$$;
