// The one state-change log of every resource (table resource_transitions): payouts, fiat payouts
// and collections through the lifecycle mechanism (lifecycle.h), KYB submissions and
// organizations by their own modules. A change is logged in the transaction that made it.
//
// Logging a change also counts it in the metrics once the transaction commits
// (payrail_resource_transitions_total, payrail_resources_created_total and
// payrail_resource_stage_seconds, labelled with the resource type and the status reached): every
// resource logged here is measured without code of its own.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <string_view>

namespace payrail::infra::store::resource_transitions {

struct Logged {
  std::string_view resource_type;  // "fiat_payout", "collection", "kyb_submission", ...
  std::string_view resource_id;
  std::optional<std::string_view> from_status;  // nullopt at creation
  std::string_view to_status;
  std::string_view trigger;
  std::optional<std::string_view> actor;  // an operator or member; nullopt for the system
};

void log(pqxx::work& tx, const Logged& change);


}  // namespace payrail::infra::store::resource_transitions
