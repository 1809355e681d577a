-- Shared by fiat payouts, collections, KYB and organizations: the operators' audit trail, the
-- per-organization enablement of live fiat corridors and collection rails, the state-change log
-- of every resource other than payouts, and the ledger accounts those resources move money
-- through.

-- Every operator action (and every member decision) that changes what an organization may do:
-- who, when, what, on which resource. Rows are only ever inserted.
CREATE TABLE audit_log (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at    timestamptz NOT NULL DEFAULT now(),
  actor          text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
  action         text NOT NULL CHECK (length(action) BETWEEN 1 AND 100),
  org_id         text REFERENCES organizations (id),
  resource_type  text NOT NULL CHECK (length(resource_type) BETWEEN 1 AND 50),
  resource_id    text NOT NULL CHECK (length(resource_id) BETWEEN 1 AND 100),
  details        text CHECK (length(details) <= 4000)
);
CREATE INDEX audit_log_by_org ON audit_log (org_id, occurred_at DESC, id DESC);
CREATE INDEX audit_log_by_resource ON audit_log (resource_id, id);

-- Live mode only: a fiat corridor (`name` is the country code, e.g. MX) or a collection rail
-- (`name` is the method, e.g. ach) an operator enabled for the organization. Test mode has all
-- of them. Disabling deletes the row; the audit log keeps both actions.
CREATE TABLE organization_rails (
  org_id      text NOT NULL REFERENCES organizations (id),
  kind        text NOT NULL CHECK (kind IN ('fiat_corridor', 'collection_rail')),
  name        text NOT NULL CHECK (name ~ '^[a-z_]{2,40}$' OR name ~ '^[A-Z]{2}$'),
  enabled_by  text NOT NULL,
  enabled_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, kind, name)
);

-- The state-change log of fiat payouts, collections, KYB submissions and organizations (payouts
-- keep payout_transitions), written in the transaction that made the change.
CREATE TABLE resource_transitions (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  resource_type  text NOT NULL,
  resource_id    text NOT NULL,
  from_status    text,
  to_status      text NOT NULL,
  trigger        text NOT NULL,
  actor          text,
  occurred_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX resource_transitions_by_resource ON resource_transitions (resource_id, id);

-- Ledger: a collection's settlement credits the balance (collections_received -> available);
-- a fiat payout's hold is settled to fiat_payouts_sent when the partner credits the beneficiary.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check
  CHECK (kind IN ('sandbox_funding', 'hold', 'release', 'refund', 'settle', 'credit'));
ALTER TABLE journal_postings DROP CONSTRAINT journal_postings_account_check;
ALTER TABLE journal_postings ADD CONSTRAINT journal_postings_account_check
  CHECK (account IN ('available', 'held', 'sandbox_funding', 'payouts_sent', 'fiat_payouts_sent',
                     'collections_received'));
