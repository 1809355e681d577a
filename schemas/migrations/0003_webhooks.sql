-- Webhooks: endpoints, one delivery per (event, endpoint), and every attempt made for it.
-- The retry schedule lives here (next_attempt_at), so a restarted worker loses nothing; leases
-- (locked_until, locked_by) let several worker processes share the work without ever sending
-- one delivery twice at the same time.

CREATE TABLE webhook_endpoints (
  id                 text PRIMARY KEY CHECK (id LIKE 'whe\_%'),
  org_id             text NOT NULL REFERENCES organizations (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'live')),
  url                text NOT NULL CHECK (url LIKE 'https://%' AND length(url) <= 2048),
  events             text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 32),
  -- AES-256-GCM (nonce || ciphertext || tag) of the whole `whsec_...` secret; the key comes
  -- from configuration (PAYRAIL_WEBHOOK_ENCRYPTION_KEY) and never reaches the database.
  secret_ciphertext  bytea NOT NULL CHECK (length(secret_ciphertext) > 28),
  active             boolean NOT NULL DEFAULT true,
  created_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at         timestamptz,
  CHECK (deleted_at IS NULL OR NOT active)
);
-- Listing (newest first) and the per-mode limit count only look at endpoints not deleted.
CREATE INDEX webhook_endpoints_listing ON webhook_endpoints (org_id, mode, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY CHECK (id LIKE 'whd\_%'),
  org_id           text NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('test', 'live')),
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id),
  event_id         text NOT NULL REFERENCES events (id),
  event_type       text NOT NULL,
  status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  -- Every attempt ever made (numbers attempts); schedule_step is the position in the retry
  -- schedule of the current round, which a redelivery of a finished delivery starts afresh.
  attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  schedule_step    integer NOT NULL DEFAULT 0 CHECK (schedule_step >= 0),
  -- Bumped by each redelivery request: an attempt that was in flight when it arrived does not
  -- settle the delivery, so a redelivery always yields an attempt started after the request.
  generation       integer NOT NULL DEFAULT 0 CHECK (generation >= 0),
  next_attempt_at  timestamptz,
  locked_until     timestamptz,
  locked_by        text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, endpoint_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CHECK ((locked_until IS NULL) = (locked_by IS NULL))
);
-- The claim query: due pending deliveries in order of due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending';
-- GET /v1/webhooks/{id}/deliveries, newest first; also the cancel-on-delete update.
CREATE INDEX webhook_deliveries_listing
  ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  delivery_id   text NOT NULL REFERENCES webhook_deliveries (id),
  number        integer NOT NULL CHECK (number > 0),
  attempted_at  timestamptz NOT NULL,
  status_code   integer CHECK (status_code BETWEEN 100 AND 599),
  latency_ms    integer NOT NULL CHECK (latency_ms >= 0),
  error         text CHECK (length(error) <= 500),
  -- One row per attempt number: a second process can never record the same attempt twice.
  PRIMARY KEY (delivery_id, number)
);
