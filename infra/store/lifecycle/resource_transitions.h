// The state-change log of fiat payouts, collections, KYB submissions and organizations (table
// resource_transitions; payouts keep their own payout_transitions). A repository applying a row
// of a lifecycle table (schemas/model/common/lifecycle.h) logs it here in the same transaction.
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

// Counts, once the transaction commits, the state changes a deferred log statement returned
// (pg::defer_row's handler; payouts' own log uses it too): each row is the resource type, the
// state reached, whether it is the first, and the seconds since the resource's first state.
void count_logged(const pqxx::row& row);

}  // namespace payrail::infra::store::resource_transitions
