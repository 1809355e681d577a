-- Stablecoin payouts: balances and their double-entry journal, payouts and their transition
-- log, events, limits and spend counters, and the screening tables.

CREATE TABLE balances (
  org_id      text NOT NULL REFERENCES organizations (id),
  mode        text NOT NULL CHECK (mode IN ('test', 'live')),
  asset       text NOT NULL CHECK (asset IN ('USDC', 'USDT', 'ETH')),
  available   numeric NOT NULL DEFAULT 0 CHECK (available >= 0),
  held        numeric NOT NULL DEFAULT 0 CHECK (held >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, mode, asset)
);

-- Every movement is one entry with balanced postings (sum zero). `available` and `held` are the
-- organization's balance accounts; the others are the counterparties.
CREATE TABLE journal_entries (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id       text NOT NULL REFERENCES organizations (id),
  mode         text NOT NULL CHECK (mode IN ('test', 'live')),
  asset        text NOT NULL,
  kind         text NOT NULL
                 CHECK (kind IN ('sandbox_funding', 'hold', 'release', 'refund', 'settle')),
  resource_id  text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
-- A payout is held once and then released, refunded or settled once: never applied twice.
CREATE UNIQUE INDEX journal_entries_once ON journal_entries (resource_id, kind)
  WHERE resource_id IS NOT NULL;
CREATE UNIQUE INDEX journal_entries_one_outcome ON journal_entries (resource_id)
  WHERE kind IN ('release', 'refund', 'settle');

CREATE TABLE journal_postings (
  entry_id  bigint NOT NULL REFERENCES journal_entries (id),
  account   text NOT NULL
              CHECK (account IN ('available', 'held', 'sandbox_funding', 'payouts_sent')),
  amount    numeric NOT NULL CHECK (amount <> 0),
  PRIMARY KEY (entry_id, account)
);

CREATE FUNCTION journal_entry_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT sum(amount) FROM journal_postings WHERE entry_id = NEW.entry_id) <> 0 THEN
    RAISE EXCEPTION 'journal entry % does not balance', NEW.entry_id;
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER journal_postings_balanced
  AFTER INSERT ON journal_postings DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION journal_entry_must_balance();

CREATE TABLE payouts (
  id                      text PRIMARY KEY CHECK (id LIKE 'po\_%'),
  org_id                  text NOT NULL REFERENCES organizations (id),
  mode                    text NOT NULL CHECK (mode IN ('test', 'live')),
  status                  text NOT NULL CHECK (status IN ('pending', 'screening', 'approved',
                            'processing', 'completed', 'failed', 'blocked', 'cancelled',
                            'pending_approval')),
  amount                  numeric NOT NULL CHECK (amount > 0),
  currency                text NOT NULL CHECK (currency IN ('USDC', 'USDT', 'ETH')),
  network                 text NOT NULL,
  address                 text NOT NULL,
  metadata                text,
  amount_usd              numeric NOT NULL,
  screening_status        text NOT NULL DEFAULT 'pending'
                            CHECK (screening_status IN ('pending', 'clear', 'blocked')),
  screening_reasons       text[] NOT NULL DEFAULT '{}',
  screening_list_version  text,
  screened_at             timestamptz,
  tx_hash                 text,
  failure_reason          text,
  approved_by             text,
  event_sequence          integer NOT NULL DEFAULT 0,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payouts_listing ON payouts (org_id, mode, created_at DESC, id DESC);
CREATE INDEX payouts_listing_by_status ON payouts (org_id, mode, status, created_at DESC, id DESC);

-- Audit log of every payout state change, written in the transaction that made it.
CREATE TABLE payout_transitions (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payout_id    text NOT NULL REFERENCES payouts (id),
  from_status  text,
  to_status    text NOT NULL,
  trigger      text NOT NULL,
  occurred_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payout_transitions_by_payout ON payout_transitions (payout_id, id);

-- Broadcast attempts: the execution worker records its intent before calling the chain adapter
-- so that a crash between the two is visible and the retry reuses the same reference.
CREATE TABLE payout_broadcasts (
  payout_id      text PRIMARY KEY REFERENCES payouts (id),
  reference      text NOT NULL,
  tx_hash        text,
  outcome        text CHECK (outcome IN ('broadcast', 'rejected')),
  failure_reason text,
  started_at     timestamptz NOT NULL DEFAULT now(),
  finished_at    timestamptz
);

-- Events: flat snapshots with a per-resource sequence, delivered by the webhook worker.
CREATE TABLE events (
  id             text PRIMARY KEY CHECK (id LIKE 'evt\_%'),
  org_id         text NOT NULL REFERENCES organizations (id),
  mode           text NOT NULL CHECK (mode IN ('test', 'live')),
  type           text NOT NULL,
  resource_type  text NOT NULL,
  resource_id    text NOT NULL,
  sequence       integer NOT NULL CHECK (sequence > 0),
  payload        text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (resource_id, sequence)
);
CREATE INDEX events_listing ON events (org_id, mode, created_at DESC, id DESC);
CREATE INDEX events_listing_by_type ON events (org_id, mode, type, created_at DESC, id DESC);

-- Per-organization operator overrides of the default limits (USD); NULL means the default.
CREATE TABLE organization_limits (
  org_id             text NOT NULL REFERENCES organizations (id),
  mode               text NOT NULL CHECK (mode IN ('test', 'live')),
  auto_approval_usd  numeric CHECK (auto_approval_usd >= 0),
  per_payout_usd     numeric CHECK (per_payout_usd >= 0),
  daily_usd          numeric CHECK (daily_usd >= 0),
  monthly_usd        numeric CHECK (monthly_usd >= 0),
  PRIMARY KEY (org_id, mode)
);

-- USD value of payouts that count against the daily and monthly limits (UTC periods). A payout
-- that ends blocked, cancelled, rejected or failed gives its amount back.
CREATE TABLE spend_counters (
  org_id        text NOT NULL REFERENCES organizations (id),
  mode          text NOT NULL CHECK (mode IN ('test', 'live')),
  period        text NOT NULL CHECK (period IN ('day', 'month')),
  period_start  date NOT NULL,
  amount_usd    numeric NOT NULL DEFAULT 0 CHECK (amount_usd >= 0),
  PRIMARY KEY (org_id, mode, period, period_start)
);

-- Internal blacklist, managed by operators with the CLI; applies to both modes.
CREATE TABLE screening_blacklist (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('address', 'name')),
  value       text NOT NULL,
  normalized  text NOT NULL,
  reason      text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, normalized)
);

-- Each screening worker reports which sanctions list version it has loaded. The API refuses
-- live payouts (503 sanctions_unavailable) unless a worker with loaded lists is alive.
CREATE TABLE screening_workers (
  worker_id     text PRIMARY KEY,
  list_version  text,
  heartbeat_at  timestamptz NOT NULL DEFAULT now()
);
