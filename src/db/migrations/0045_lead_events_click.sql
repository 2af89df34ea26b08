-- The fraud rule `burst` (operations.md §18) counts the hour's leads of a visitor's or network's
-- clicks. Read through lead_events_analytics_idx it walked all of the workspace's leads of the
-- hour to find the few of those clicks: a busy workspace paid for its own volume on every partner
-- conversion. Read from the clicks, it costs a probe per click of that visitor or network.
CREATE INDEX lead_events_click_idx ON lead_events (click_id, created_at);
