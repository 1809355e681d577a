// KYB submissions (tables kyb_submissions, kyb_beneficial_owners, kyb_documents): an
// organization submits, operators review. Every change applies a row of the submission table
// (schemas/model/organizations/kyb_lifecycle.h) and the organization's kyb_status row it names, in
// one transaction guarded by the locked organization and submission, with both changes logged in
// resource_transitions and the action in the audit log. Beneficial owners' names and dates of
// birth are sealed with the data key before they reach the database and opened only here.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/result.h"
#include "schemas/model/organizations/kyb.h"
#include "schemas/model/organizations/kyb_lifecycle.h"

namespace payrail::infra::store::kyb_submissions {

struct SubmissionRow {
  std::string id;
  std::string org_id;
  model::KybSubmissionStatus status = model::KybSubmissionStatus::pending;
  model::KybApplication application;  // owners and documents only when asked for
  std::optional<std::string> review_notes;
  std::optional<std::string> reviewed_by;
  std::optional<std::string> reviewed_at;  // ISO 8601 UTC, once decided
  std::string created_at;
};

// POST /v1/kyb. The organization's kyb_status decides (kyb_lifecycle.h submission_refusal):
// 409 kyb_in_review while one is pending or in review, 409 kyb_already_verified once verified.
// `actor` is the API key id or the owner's session subject.
model::Result<SubmissionRow> submit(pg::Pool& pool, std::string_view org_id,
                                    const model::KybApplication& application,
                                    const crypto::DataKey& key, std::string_view actor);

// GET /v1/kyb: the organization's submissions (of one status, or all), newest first, owners
// opened.
model::Result<Page<SubmissionRow>> list(pg::Pool& pool, std::string_view org_id,
                                        std::optional<model::KybSubmissionStatus> status,
                                        const ListQuery& query, const crypto::DataKey& key);

// The operators' review queue, oldest first, without owners and documents: every organization,
// or one; every status, or one. At most `limit` (1..1000).
struct QueueFilter {
  std::optional<model::KybSubmissionStatus> status;
  std::optional<std::string> org_id;
  int limit = 100;
};
model::Result<std::vector<SubmissionRow>> queue(pg::Pool& pool, const QueueFilter& filter);

// One submission with its owners (opened) and documents, for an operator.
model::Result<std::optional<SubmissionRow>> find(pg::Pool& pool, std::string_view submission_id,
                                                 const crypto::DataKey& key);

// An operator moves a submission to `to` (in_review, verified or rejected) with optional notes.
// Refused without a change: an unknown submission (resource_missing), a move the table forbids,
// notes where the row takes none or none where it requires them (bad_request).
struct Review {
  std::string submission_id;
  model::KybSubmissionStatus to = model::KybSubmissionStatus::in_review;
  std::optional<std::string> notes;
  std::string actor;
};
model::Result<SubmissionRow> review(pg::Pool& pool, const Review& review);

}  // namespace payrail::infra::store::kyb_submissions
