-- The web console (docs/console.md): members' browser sessions, the OpenID Connect sign-ins in
-- progress, and the index GET /v1/balance-transactions reads the journal by.

-- A signed-in member's browser. The cookie carries a random 256-bit id; only its SHA-256 (hex) is
-- kept, so a copy of this table signs nobody in. `csrf_token` is what every state-changing
-- request of the session must repeat in X-CSRF-Token.
CREATE TABLE console_sessions (
  id_hash     text PRIMARY KEY CHECK (id_hash ~ '^[0-9a-f]{64}$'),
  subject     text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  email       text NOT NULL CHECK (length(email) BETWEEN 1 AND 320),
  csrf_token  text NOT NULL CHECK (length(csrf_token) BETWEEN 32 AND 100),
  sign_in     text NOT NULL CHECK (sign_in IN ('oidc', 'development')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);

-- An authorization-code sign-in between the redirect to the identity provider and its callback:
-- single use (deleted when the callback takes it), bound to the browser that started it by the
-- hash of a second cookie, and short-lived.
CREATE TABLE console_sign_ins (
  state_hash     text PRIMARY KEY CHECK (state_hash ~ '^[0-9a-f]{64}$'),
  browser_hash   text NOT NULL CHECK (browser_hash ~ '^[0-9a-f]{64}$'),
  nonce          text NOT NULL,
  code_verifier  text NOT NULL,
  redirect_uri   text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX console_sign_ins_by_expiry ON console_sign_ins (expires_at);

-- Balance transactions are the journal of one organization and mode, newest first. New entries
-- take the right edge of this index (ids only grow), like the journal's primary key.
CREATE INDEX journal_entries_by_organization ON journal_entries (org_id, mode, id);
