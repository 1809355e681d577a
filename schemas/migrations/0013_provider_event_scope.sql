-- Collection provider notifications (0008), three corrections (docs/collections.md):
--
-- Unique per provider, MODE and event id: a provider's sandbox and its live account number their
-- events independently, so a live notification reusing a test one's id is another notification.
--
-- A repeated event id whose content differs (type, method, reference, amount or currency) is no
-- redelivery: it is recorded too, as an exception for operators (outcome
-- `conflicting_duplicate`, `duplicate_of` the first record), never applied and never ignored.
-- Only the first record of an id takes part in the unique key.
--
-- `scope_org_id`: the organization whose own account received the notification, when the ingress
-- knows it (the test helpers: each organization's sandbox is its own). Such a notification is
-- matched among that organization's collections only; NULL (a provider's shared account) matches
-- any. `recorded_at` is from now on the time of the insert itself (clock_timestamp()), taken
-- after the matched collection is locked: it is when Payrail received the payment, compared
-- with when the collection stopped accepting payments.
ALTER TABLE collection_provider_events
  ADD COLUMN scope_org_id text REFERENCES organizations (id),
  ADD COLUMN duplicate_of text REFERENCES collection_provider_events (id),
  DROP CONSTRAINT collection_provider_events_provider_provider_event_id_key,
  DROP CONSTRAINT collection_provider_events_outcome_check,
  DROP CONSTRAINT collection_provider_events_check2,
  ADD CONSTRAINT collection_provider_events_outcome_check
    CHECK (outcome IN ('applied', 'unmatched_reference', 'late_payment', 'duplicate_payment',
                       'failure_not_applicable', 'conflicting_duplicate')),
  -- Only a notification that was applied to a collection, or found its collection closed or paid,
  -- names one.
  ADD CONSTRAINT collection_provider_events_matched_check
    CHECK (outcome IS NULL OR
           (outcome IN ('unmatched_reference', 'conflicting_duplicate')) = (collection_id IS NULL)),
  ADD CONSTRAINT collection_provider_events_duplicate_of_check
    CHECK ((duplicate_of IS NULL) = (outcome IS DISTINCT FROM 'conflicting_duplicate'));

CREATE UNIQUE INDEX collection_provider_events_provider_event
  ON collection_provider_events (provider, mode, provider_event_id) WHERE duplicate_of IS NULL;
-- The versions recorded against a first record, compared with each new delivery of its id.
CREATE INDEX collection_provider_events_duplicates
  ON collection_provider_events (duplicate_of) WHERE duplicate_of IS NOT NULL;
