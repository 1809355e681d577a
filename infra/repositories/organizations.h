#pragma once

#include <optional>
#include <string>

#include "infra/pg/pool.h"
#include "infra/repositories/api_keys.h"
#include "schemas/model/organization_lifecycle.h"
#include "schemas/model/result.h"

namespace payrail::infra::repositories::organizations {

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

struct StatusChange {
  model::OrganizationStatus from = model::OrganizationStatus::active;
  model::OrganizationStatus to = model::OrganizationStatus::active;
};

// Operator actions (CLI): suspend, reinstate or close through the organization lifecycle. One
// transaction, guarded by the current status (locked): the change, its resource_transitions row
// and the audit entry with the operator's name and reason. A pair the table forbids changes
// nothing and is bad_request naming both; an unknown organization is resource_missing.
model::Result<StatusChange> change_status(pg::Pool& pool, std::string_view org_id,
                                          model::OrganizationTrigger trigger,
                                          std::string_view actor,
                                          const std::optional<std::string>& reason);

// The organization's kyb_status, locked for the caller's transaction (nullopt: no organization).
struct Standing {
  model::OrganizationStatus status = model::OrganizationStatus::active;
  model::KybStatus kyb_status = model::KybStatus::unverified;
};
std::optional<Standing> lock_standing(pqxx::work& tx, std::string_view org_id);

// Moves kyb_status by `trigger` inside the caller's transaction (after lock_standing) and logs
// it; internal_error when the table forbids it (the caller checked the submission's own table).
model::Status move_kyb_status(pqxx::work& tx, std::string_view org_id, model::KybStatus from,
                              model::KybStatusTrigger trigger,
                              std::optional<std::string_view> actor);

}  // namespace payrail::infra::repositories::organizations
