-- Operations: re-publishing a topic's outbox messages by time (payrail republish), and the
-- per-organization rate-limit buckets every API process leases tokens from.

CREATE INDEX outbox_by_topic_time ON outbox (topic, created_at, id);

-- One token bucket per organization and mode (or per session subject), shared by every API
-- process: each process takes tokens in small leases (one UPDATE per lease), never one per
-- request. `tokens` is fractional because the bucket refills continuously; it is a count of
-- requests, never money. `granted` is what the last lease took (returned to the leaser).
CREATE TABLE rate_limit_buckets (
  bucket_key   text PRIMARY KEY CHECK (length(bucket_key) BETWEEN 1 AND 300),
  tokens       double precision NOT NULL,
  granted      integer NOT NULL,
  refilled_at  timestamptz NOT NULL
);
CREATE INDEX rate_limit_buckets_by_age ON rate_limit_buckets (refilled_at);
