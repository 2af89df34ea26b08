-- Click rewards (operations.md §18 "Commissions" → "Click rewards").
--
-- The click writer gives bit 4 of clicks.visitor_flags to a visitor's first click of the UTC day
-- on links recorded for a partner (visitor_days with the partner's id as the scope), so a
-- partner's distinct visitors of a day are the flagged clicks of that day. This index holds those
-- clicks only (one per visitor, partner and day): the hourly click-reward job reads the last days
-- of every workspace through it without touching the others.
CREATE INDEX IF NOT EXISTS clicks_partner_visitors_idx ON clicks (workspace_id, created_at)
  WHERE visitor_flags & 4 <> 0 AND NOT bot AND partner_id IS NOT NULL;

-- commissions_click_day (migration 0036) is already unique on (partner_id, click_day) for
-- type = 'click': a partner's id belongs to one workspace, so it is the (workspace, partner, day) key.
