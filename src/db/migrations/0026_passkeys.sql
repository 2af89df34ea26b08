-- Passkeys (WebAuthn, operations.md §15). A credential's public key is not a secret: stored as
-- the authenticator gave it (COSE). The counter detects a cloned authenticator.
CREATE TABLE passkeys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The credential id in base64url, as the browser names it; one credential, one account.
  credential_id text NOT NULL UNIQUE,
  public_key bytea NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id);

-- The challenges handed out and not yet answered: shared by every instance, single use (deleted
-- when an answer names them), a few minutes. Only their SHA-256 is kept.
-- purpose: 'register' (user_id the account), 'second_factor' (user_id the pending login's
-- account) or 'sign_in' (no user: a passkey alone).
CREATE TABLE passkey_challenges (
  challenge_hash bytea PRIMARY KEY,
  purpose text NOT NULL,
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX passkey_challenges_expiry_idx ON passkey_challenges (expires_at);
