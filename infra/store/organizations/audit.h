// The audit trail (table audit_log): every operator action and member decision that changes what
// an organization may do, with who did it and when, written in the same transaction as the
// change. An auditor reads it back with `payrail audit-log`.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::audit {

struct Entry {
  std::string actor;   // the operator's name, or a member's session subject
  std::string action;  // "kyb.verified", "rail.enabled", "organization.suspended", ...
  std::optional<std::string> org_id;
  std::string resource_type;  // "organization", "kyb_submission", "fiat_corridor", ...
  std::string resource_id;
  std::optional<std::string> details;  // short free text (notes); never personal data
};

void record(pqxx::work& tx, const Entry& entry);

struct Row {
  Entry entry;
  std::string occurred_at;  // ISO 8601 UTC
};

// Newest first, at most `limit` (1..1000); all organizations when `org_id` is empty.
model::Result<std::vector<Row>> list(pg::Pool& pool, const std::optional<std::string>& org_id,
                                     int limit);

}  // namespace payrail::infra::store::audit
