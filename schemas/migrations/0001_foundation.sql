-- Foundation: organizations, members, API keys, idempotency records and the outbox.
-- Migrations are never edited after they land; change the schema with a new file.

CREATE TABLE organizations (
  id             text PRIMARY KEY CHECK (id LIKE 'org\_%'),
  legal_name     text NOT NULL CHECK (length(legal_name) BETWEEN 1 AND 200),
  display_name   text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  country        text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  status         text NOT NULL DEFAULT 'active'
                   CHECK (status IN ('pending', 'active', 'suspended', 'closed')),
  kyb_status     text NOT NULL DEFAULT 'unverified'
                   CHECK (kyb_status IN ('unverified', 'pending', 'verified', 'rejected')),
  owner_subject  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

-- Members authenticate with identity-provider sessions (JWT `sub`).
CREATE TABLE organization_members (
  org_id      text NOT NULL REFERENCES organizations (id),
  subject     text NOT NULL,
  email       text NOT NULL,
  role        text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, subject)
);
CREATE INDEX organization_members_by_subject ON organization_members (subject);

-- Secrets are stored only as SHA-256 hashes; `prefix` is the visible, indexed lookup part.
CREATE TABLE api_keys (
  id            text PRIMARY KEY CHECK (id LIKE 'key\_%'),
  org_id        text NOT NULL REFERENCES organizations (id),
  mode          text NOT NULL CHECK (mode IN ('test', 'live')),
  name          text CHECK (length(name) <= 100),
  prefix        text NOT NULL,
  secret_hash   bytea NOT NULL CHECK (length(secret_hash) = 32),
  scopes        text[] NOT NULL,
  revoked_at    timestamptz,
  last_used_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_by_prefix ON api_keys (prefix);
CREATE INDEX api_keys_listing ON api_keys (org_id, mode, created_at DESC, id DESC);

-- One row per (organization, mode, Idempotency-Key). Written in the same transaction as the
-- resource it created, so a key never exists without its resource and vice versa.
CREATE TABLE idempotency_keys (
  org_id           text NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  idempotency_key  text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  endpoint         text NOT NULL,
  request_hash     bytea NOT NULL,
  resource_id      text NOT NULL,
  response_status  integer,
  response_body    text,
  response_request_id text,  -- a replay is the original response, Request-Id included
  created_at       timestamptz NOT NULL DEFAULT now(),
  completed_at     timestamptz,
  PRIMARY KEY (org_id, mode, idempotency_key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- Transactional outbox: a message that must follow a commit is written here in the same
-- transaction and published by the relay. `consumed_at` is set by the topic's designated
-- consumer in the transaction that applies the message; published rows that stay unconsumed
-- are re-driven (the broker may have lost them).
CREATE TABLE outbox (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id        text NOT NULL UNIQUE,
  topic             text NOT NULL,
  message_key       text NOT NULL,
  payload           text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  published_at      timestamptz,
  publish_attempts  integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz NOT NULL DEFAULT now(),
  consumed_at       timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (next_attempt_at, id) WHERE published_at IS NULL;
CREATE INDEX outbox_unconsumed ON outbox (published_at)
  WHERE consumed_at IS NULL AND published_at IS NOT NULL;
CREATE INDEX outbox_consumed_age ON outbox (consumed_at) WHERE consumed_at IS NOT NULL;
