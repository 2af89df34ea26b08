-- Fraud rules `burst` and `sameVisitor` (operations.md §18 "Fraud rules").
--
-- What the click writer keeps of a partner's human click for 24 hours (then deleted by the
-- clicks maintenance job): its visitor (§14's daily hash of address and user agent) and its
-- network, a hash of the address's /24 (IPv4) or /48 (IPv6) under the same day's salt. No
-- address is stored, and once the day's salt is deleted neither hash can be tied to one. A lead
-- counts the leads of the last hour whose clicks share either hash with its own (`burst`), and
-- reads its click's visitor and day (`sameVisitor`).
CREATE TABLE click_visitors (
  click_id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  visitor bigint NOT NULL,
  network bigint NOT NULL
);
CREATE INDEX click_visitors_visitor_idx ON click_visitors (workspace_id, visitor);
CREATE INDEX click_visitors_network_idx ON click_visitors (workspace_id, network);
CREATE INDEX click_visitors_created_idx ON click_visitors (created_at);

-- The visitor hash each user signed in from on a UTC day (same hash as a click's that day): a
-- partner whose user signed in from a click's visitor on the click's day referred themselves.
-- Kept for the day and the next (a click of yesterday can still be judged today), deleted by the
-- sessions maintenance job after that; the salts of past days are deleted meanwhile.
CREATE TABLE sign_in_visitors (
  user_id uuid NOT NULL,
  day date NOT NULL,
  hash bigint NOT NULL,
  PRIMARY KEY (user_id, day, hash)
);
