-- Collections: fiat pay-ins that settle to USDC and fund the balance (docs/collections.md).
-- A collection waits for a payment carrying its reference; providers' notifications are stored
-- as they arrive (deduplicated by the provider's event id) and applied by the settlement worker;
-- settlement credits the USDC balance through the ledger's `credit` movement (0004). State
-- changes are logged in resource_transitions (resource_type 'collection').

CREATE TABLE collections (
  id                    text PRIMARY KEY CHECK (id LIKE 'col\_%'),
  org_id                text NOT NULL REFERENCES organizations (id),
  mode                  text NOT NULL CHECK (mode IN ('test', 'live')),
  status                text NOT NULL CHECK (status IN ('awaiting_payment', 'received', 'settled',
                          'failed', 'expired', 'cancelled')),
  amount                numeric NOT NULL CHECK (amount > 0),
  currency              text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  method                text NOT NULL CHECK (method IN ('interac_etransfer', 'ach', 'eft')),
  -- What the payer writes in the transfer's message field; it matches a payment to the
  -- collection. Unique across modes, so a payment can never match two collections.
  reference             text NOT NULL UNIQUE CHECK (reference ~ '^[0-9A-Z]{8,20}$'),
  provider              text NOT NULL CHECK (length(provider) BETWEEN 1 AND 40),
  -- The instructions as shown to the payer (a JSON object), fixed at creation.
  payment_instructions  text NOT NULL,
  customer_reference    text CHECK (length(customer_reference) BETWEEN 1 AND 200),
  metadata              text,
  -- What arrived (it may differ from `amount`), and when.
  received_amount       numeric CHECK (received_amount > 0),
  received_at           timestamptz,
  -- The conversion: the USDC credited and the currency -> USDC rate used (as GET /v1/rates).
  settled_asset         text CHECK (settled_asset = 'USDC'),
  settled_amount        numeric CHECK (settled_amount >= 0),
  settlement_rate       numeric CHECK (settlement_rate > 0),
  settlement_rate_as_of timestamptz,
  settled_at            timestamptz,
  failure_reason        text CHECK (failure_reason IN ('payment_failed', 'payment_returned')),
  expires_at            timestamptz NOT NULL,
  event_sequence        integer NOT NULL DEFAULT 0 CHECK (event_sequence >= 0),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CHECK ((received_amount IS NOT NULL) = (status IN ('received', 'settled', 'failed'))),
  CHECK ((settled_amount IS NOT NULL) = (status = 'settled')),
  CHECK ((settled_asset IS NOT NULL) = (status = 'settled')),
  CHECK ((failure_reason IS NOT NULL) = (status = 'failed'))
);
CREATE INDEX collections_listing ON collections (org_id, mode, created_at DESC, id DESC);
CREATE INDEX collections_listing_by_status
  ON collections (org_id, mode, status, created_at DESC, id DESC);
-- The expiry worker's query: unpaid collections by deadline.
CREATE INDEX collections_due ON collections (expires_at) WHERE status = 'awaiting_payment';

-- Every notification a collection provider sent (payment received, failed or returned), stored
-- before anything acts on it: it is external data. A provider that sends the same notification
-- twice is recorded once (UNIQUE provider, provider_event_id). `outcome` is set by the
-- settlement worker in the transaction that applies it; anything but `applied` waits for an
-- operator (`payrail collection-exceptions`): nothing is ever credited to a guess.
CREATE TABLE collection_provider_events (
  id                   text PRIMARY KEY CHECK (id LIKE 'pev\_%'),
  -- Arrival order (ids are random): a collection's notifications are applied in this order.
  arrival              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  provider             text NOT NULL CHECK (length(provider) BETWEEN 1 AND 40),
  provider_event_id    text NOT NULL CHECK (length(provider_event_id) BETWEEN 1 AND 200),
  mode                 text NOT NULL CHECK (mode IN ('test', 'live')),
  type                 text NOT NULL
                         CHECK (type IN ('payment_received', 'payment_failed', 'payment_returned')),
  method               text NOT NULL CHECK (length(method) BETWEEN 1 AND 40),
  -- The reference as the payer wrote it, and the form references are matched in.
  reference            text NOT NULL CHECK (length(reference) BETWEEN 1 AND 200),
  reference_normalized text NOT NULL CHECK (length(reference_normalized) <= 200),
  amount               numeric NOT NULL CHECK (amount > 0),
  currency             text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  occurred_at          timestamptz NOT NULL,
  recorded_at          timestamptz NOT NULL DEFAULT now(),
  collection_id        text REFERENCES collections (id),
  org_id               text REFERENCES organizations (id),
  outcome              text CHECK (outcome IN ('applied', 'unmatched_reference', 'late_payment',
                         'duplicate_payment', 'failure_not_applicable')),
  processed_at         timestamptz,
  UNIQUE (provider, provider_event_id),
  CHECK ((outcome IS NULL) = (processed_at IS NULL)),
  CHECK ((collection_id IS NULL) = (org_id IS NULL)),
  CHECK (outcome IS NULL OR (outcome = 'unmatched_reference') = (collection_id IS NULL))
);
-- Events not yet applied, per reference, in arrival order (the worker applies them in order).
CREATE INDEX collection_provider_events_pending
  ON collection_provider_events (mode, reference_normalized, arrival) WHERE outcome IS NULL;
-- A collection's payments that were not credited (shown on the collection).
CREATE INDEX collection_provider_events_by_collection
  ON collection_provider_events (collection_id, arrival) WHERE collection_id IS NOT NULL;
-- The operators' queue of exceptions, newest first.
CREATE INDEX collection_provider_events_exceptions
  ON collection_provider_events (arrival DESC) WHERE outcome IS DISTINCT FROM 'applied';
