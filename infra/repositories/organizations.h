#pragma once

#include <optional>
#include <string>

#include "infra/pg/pool.h"
#include "infra/repositories/api_keys.h"
#include "schemas/model/result.h"

namespace payrail::infra::repositories::organizations {

struct OrganizationRow {
  std::string id;
  std::string legal_name;
  std::string display_name;
  std::string country;
  std::string status;
  std::string kyb_status;
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

// Operator actions (CLI).
model::Status set_status(pg::Pool& pool, std::string_view org_id, std::string_view status);
model::Status set_kyb_status(pg::Pool& pool, std::string_view org_id, std::string_view kyb_status);

}  // namespace payrail::infra::repositories::organizations
