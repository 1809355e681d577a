-- Messages a worker could not apply. A failure specific to the message (not a dependency being
-- down) is counted here in the same transaction that rolled the message back to its savepoint;
-- the message is retried with backoff and, after PAYRAIL_MESSAGE_ATTEMPTS_MAX attempts, parked:
-- its partition moves on, the row stays `parked` until an operator re-drives it
-- (`payrail message-failures`, `payrail message-redrive`). The message itself stays in the
-- outbox, unconsumed; the relay does not re-drive parked messages on its own. A row whose outbox
-- message was consumed since (or is past retention) is resolved.
CREATE TABLE message_failures (
  message_id      text PRIMARY KEY,
  consumer_group  text NOT NULL,
  topic           text NOT NULL,
  resource_id     text NOT NULL,
  attempts        integer NOT NULL CHECK (attempts >= 0),
  last_error      text NOT NULL,
  status          text NOT NULL CHECK (status IN ('retrying', 'parked', 'redriven')),
  first_failed_at timestamptz NOT NULL DEFAULT now(),
  last_failed_at  timestamptz NOT NULL DEFAULT now(),
  parked_at       timestamptz,
  redriven_at     timestamptz,
  redrive_count   integer NOT NULL DEFAULT 0
);
CREATE INDEX message_failures_parked ON message_failures (last_failed_at) WHERE status = 'parked';
