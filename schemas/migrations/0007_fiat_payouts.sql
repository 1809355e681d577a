-- Fiat payouts: local currency sent to a beneficiary's bank account through a payout partner,
-- funded from the organization's USDC balance. The USDC is held at creation and released,
-- refunded or settled (held -> fiat_payouts_sent, 0004) through the same journal as payouts;
-- every state change is logged in resource_transitions (0004). Account identifiers are stored
-- only sealed (AES-256-GCM with the service's data key, nonce || ciphertext || tag) and masked.

CREATE TABLE fiat_payouts (
  id                      text PRIMARY KEY CHECK (id LIKE 'fpo\_%'),
  org_id                  text NOT NULL REFERENCES organizations (id),
  mode                    text NOT NULL CHECK (mode IN ('test', 'live')),
  status                  text NOT NULL CHECK (status IN ('pending', 'screening', 'processing',
                            'completed', 'failed', 'blocked', 'cancelled', 'pending_approval')),
  amount                  numeric NOT NULL CHECK (amount > 0),
  currency                text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  country                 text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  beneficiary_name        text NOT NULL CHECK (length(beneficiary_name) BETWEEN 1 AND 140),
  account_type            text NOT NULL CHECK (account_type ~ '^[a-z_]{2,40}$'),
  -- The whole account object with identifiers in full; opened only to send it to the partner.
  account_sealed          bytea NOT NULL CHECK (length(account_sealed) > 28),
  -- The same object with identifiers masked (••••1234): what responses show.
  account_masked          text NOT NULL,
  -- Funding: usdc_amount = amount / rate rounded up to 6 decimals, rate = USDC -> currency.
  usdc_amount             numeric NOT NULL CHECK (usdc_amount > 0 AND scale(usdc_amount) <= 6),
  rate                    numeric NOT NULL CHECK (rate > 0),
  rate_as_of              timestamptz NOT NULL,
  amount_usd              numeric NOT NULL,
  metadata                text,
  screening_status        text NOT NULL DEFAULT 'pending'
                            CHECK (screening_status IN ('pending', 'clear', 'blocked')),
  screening_reasons       text[] NOT NULL DEFAULT '{}',
  screening_list_version  text,
  screened_at             timestamptz,
  approved_by             text,
  -- The partner's answer to the send, recorded once (the first recorded outcome wins).
  partner_reference       text,
  partner_outcome         text CHECK (partner_outcome IN ('accepted', 'rejected')),
  sent_at                 timestamptz,
  estimated_settlement_at timestamptz,
  failure_reason          text CHECK (length(failure_reason) <= 500),
  event_sequence          integer NOT NULL DEFAULT 0,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  CHECK ((partner_outcome IS NULL) = (sent_at IS NULL)),
  CHECK ((partner_outcome = 'accepted') = (partner_reference IS NOT NULL))
);
CREATE INDEX fiat_payouts_listing ON fiat_payouts (org_id, mode, created_at DESC, id DESC);
CREATE INDEX fiat_payouts_listing_by_status
  ON fiat_payouts (org_id, mode, status, created_at DESC, id DESC);
CREATE INDEX fiat_payouts_listing_by_country
  ON fiat_payouts (org_id, mode, country, created_at DESC, id DESC);
