// The state-change log of fiat payouts, collections, KYB submissions and organizations (table
// resource_transitions; payouts keep their own payout_transitions). A repository applying a row
// of a lifecycle table (schemas/model/lifecycle.h) logs it here in the same transaction.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <string_view>

namespace payrail::infra::repositories::resource_transitions {

struct Logged {
  std::string_view resource_type;  // "fiat_payout", "collection", "kyb_submission", ...
  std::string_view resource_id;
  std::optional<std::string_view> from_status;  // nullopt at creation
  std::string_view to_status;
  std::string_view trigger;
  std::optional<std::string_view> actor;  // an operator or member; nullopt for the system
};

void log(pqxx::work& tx, const Logged& change);

}  // namespace payrail::infra::repositories::resource_transitions
