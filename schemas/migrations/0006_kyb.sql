-- Business verification (KYB): an organization's submissions and what they contain. Beneficial
-- owners' names and dates of birth are personal data: they are stored sealed (AES-256-GCM with
-- the service's data key, nonce || ciphertext || tag) and opened only to answer the organization
-- (GET /v1/kyb) or an operator reviewing it. Reviews are recorded in resource_transitions and
-- audit_log (0004); organizations.kyb_status follows the submissions.

CREATE TABLE kyb_submissions (
  id                     text PRIMARY KEY CHECK (id LIKE 'kyb\_%'),
  org_id                 text NOT NULL REFERENCES organizations (id),
  status                 text NOT NULL
                           CHECK (status IN ('pending', 'in_review', 'verified', 'rejected')),
  legal_name             text NOT NULL CHECK (length(legal_name) BETWEEN 1 AND 200),
  registration_no        text NOT NULL CHECK (length(registration_no) BETWEEN 1 AND 100),
  incorporation_country  text NOT NULL CHECK (incorporation_country ~ '^[A-Z]{2}$'),
  review_notes           text CHECK (length(review_notes) BETWEEN 1 AND 2000),
  reviewed_by            text CHECK (length(reviewed_by) BETWEEN 1 AND 200),
  reviewed_at            timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  CHECK ((reviewed_at IS NULL) = (status IN ('pending', 'in_review')))
);
-- At most one submission waits for review per organization (pending or in review).
CREATE UNIQUE INDEX kyb_submissions_one_open ON kyb_submissions (org_id)
  WHERE status IN ('pending', 'in_review');
CREATE INDEX kyb_submissions_listing ON kyb_submissions (org_id, created_at DESC, id DESC);
-- The operators' review queue, oldest first.
CREATE INDEX kyb_submissions_queue ON kyb_submissions (status, created_at, id);

CREATE TABLE kyb_beneficial_owners (
  submission_id  text NOT NULL REFERENCES kyb_submissions (id),
  position       integer NOT NULL CHECK (position BETWEEN 0 AND 24),
  name_sealed    bytea NOT NULL CHECK (length(name_sealed) > 28),
  dob_sealed     bytea NOT NULL CHECK (length(dob_sealed) > 28),
  ownership_pct  numeric NOT NULL
                   CHECK (ownership_pct BETWEEN 0 AND 100 AND scale(ownership_pct) <= 2),
  country        text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  PRIMARY KEY (submission_id, position)
);

CREATE TABLE kyb_documents (
  submission_id  text NOT NULL REFERENCES kyb_submissions (id),
  position       integer NOT NULL CHECK (position BETWEEN 0 AND 19),
  type           text NOT NULL CHECK (type IN ('certificate_of_incorporation',
                                               'articles_of_association', 'proof_of_address',
                                               'shareholder_register', 'government_id')),
  reference      text NOT NULL CHECK (length(reference) BETWEEN 1 AND 200),
  PRIMARY KEY (submission_id, position)
);
