// Live-mode availability of fiat corridors and collection rails per organization: the one
// mechanism fiat payouts, collections and the operator CLI share. Test mode has every corridor
// and rail; in live mode a create for a corridor or rail an operator has not enabled for the
// organization is refused with 503 provider_unavailable before anything is held. Enabling and
// disabling are recorded in the audit log with the operator's name.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::rails {

enum class RailKind {
  fiat_corridor,    // name: the destination country code ("MX")
  collection_rail,  // name: the collection method ("ach")
};

std::string_view kind_name(RailKind kind);

bool is_enabled(pqxx::work& tx, std::string_view org_id, RailKind kind, std::string_view name);
model::Result<bool> is_enabled(pg::Pool& pool, std::string_view org_id, RailKind kind,
                               std::string_view name);

// Idempotent; resource_missing when the organization does not exist.
model::Status enable(pg::Pool& pool, std::string_view org_id, RailKind kind, std::string_view name,
                     std::string_view actor);
// False when it was not enabled.
model::Result<bool> disable(pg::Pool& pool, std::string_view org_id, RailKind kind,
                            std::string_view name, std::string_view actor);

struct EnabledRail {
  RailKind kind = RailKind::fiat_corridor;
  std::string name;
  std::string enabled_by;
  std::string enabled_at;
};

model::Result<std::vector<EnabledRail>> list(pg::Pool& pool, std::string_view org_id);

}  // namespace payrail::infra::store::rails
