#pragma once

#include <optional>
#include <string>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/organizations/api_keys.h"
#include "schemas/model/common/result.h"
#include "schemas/model/organizations/organization_lifecycle.h"

namespace payrail::infra::store::organizations {

struct OrganizationRow {
  std::string id;
  std::string legal_name;
  std::string display_name;
  std::string country;
  model::OrganizationStatus status = model::OrganizationStatus::active;
  model::KybStatus kyb_status = model::KybStatus::unverified;
  std::string created_at;
};

struct NewOrganization {
  std::string legal_name;
  std::string display_name;
  std::string country;
  std::string owner_subject;
  std::string owner_email;
};

struct CreatedOrganization {
  OrganizationRow organization;
  api_keys::IssuedKey test_key;
};

// One transaction: the organization, its owner membership, its accounts (test mode funded with
// the sandbox balance) and a test-mode key with every scope.
model::Result<CreatedOrganization> create(pg::Pool& pool, const NewOrganization& request);

model::Result<std::optional<OrganizationRow>> find(pg::Pool& pool, std::string_view org_id);

// The member's role in the organization, if the session subject is a member.
model::Result<std::optional<std::string>> member_role(pg::Pool& pool, std::string_view org_id,
                                                      std::string_view subject);

// What closing cancelled (OrganizationEffects::cancels_unsent).
struct WoundDown {
  int payouts = 0;
  int fiat_payouts = 0;
  int collections = 0;
};

struct StatusChange {
  model::OrganizationStatus from = model::OrganizationStatus::active;
  model::OrganizationStatus to = model::OrganizationStatus::active;
  WoundDown cancelled;
};

// Operator actions (CLI): suspend, reinstate or close through the organization lifecycle. One
// transaction, guarded by the current status (locked): the change, its resource_transitions row
// and the audit entry with the operator's name and reason; closing also cancels, in that
// transaction, what the organization has not sent (wind_down.h). A pair the table forbids changes
// nothing and is bad_request naming both; an unknown organization is resource_missing.
model::Result<StatusChange> change_status(pg::Pool& pool, std::string_view org_id,
                                          model::OrganizationTrigger trigger,
                                          std::string_view actor,
                                          const std::optional<std::string>& reason);

// The organization's status and kyb_status, locked for the caller's transaction, which changes
// them (nullopt: no organization). FOR NO KEY UPDATE: rows that reference the organization can
// still be inserted meanwhile (a worker's event, a journal entry), so a close that waits for a
// worker's payout never deadlocks with it.
struct Standing {
  model::OrganizationStatus status = model::OrganizationStatus::active;
  model::KybStatus kyb_status = model::KybStatus::unverified;
};
std::optional<Standing> lock_standing(pqxx::work& tx, std::string_view org_id);

// For a member's decision that moves money (approve, reject): the organization's status, held
// (FOR SHARE) until the caller's transaction ends, so no suspension or close commits in between;
// org_suspended unless it is active (model::check_standing), resource_missing without it. Take it
// before the resource's own row lock: closing locks the organization first too.
model::Status hold_standing(pqxx::work& tx, std::string_view org_id);

// Moves kyb_status by `trigger` inside the caller's transaction (after lock_standing) and logs
// it; internal_error when the table forbids it (the caller checked the submission's own table).
model::Status move_kyb_status(pqxx::work& tx, std::string_view org_id, model::KybStatus from,
                              model::KybStatusTrigger trigger,
                              std::optional<std::string_view> actor);

}  // namespace payrail::infra::store::organizations
