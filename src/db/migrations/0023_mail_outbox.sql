-- Mail (operations.md §15): every message is written to this outbox in the transaction of the
-- change it tells of (an invitation, a password reset) and sent after the answer by a worker of
-- any instance, so a slow or failing mail server delays no request and loses no message across
-- restarts. The message (it carries single-use links) is sealed with SECRET and the row is
-- deleted once the server has taken it.
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY,
  -- What the message is for ('invitation', 'password-reset', …): logs name it, never its body.
  kind text NOT NULL,
  -- The recipient's address is needed in the clear by nothing but the send: sealed with the body.
  message_sealed text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Held by one worker until then (FOR UPDATE SKIP LOCKED takes the next free row).
  leased_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at);
