// Closing an organization (OrganizationEffects::cancels_unsent), inside the close's transaction
// once the organization's row is locked (organizations::change_status). A careful operator stops
// every movement of money that has not left yet, and lets the rest finish:
//   - payouts and fiat payouts the table can still cancel (pending, screening, approved,
//     pending_approval): cancelled through their lifecycle's cancel transition, so each hold is
//     released once, each gets its payout.cancelled / fiat_payout.cancelled event and returns its
//     spend; processing ones were sent already and complete or fail as usual;
//   - collections awaiting payment: cancelled (collection.cancelled), so a later payment is a
//     late payment for an operator; one whose payment arrived before the close is left to be
//     received and settled, since the money came (collections::cancel refuses it).
// Each cancel is in the audit log with the operator's name. Workers that pick a cancelled one up
// afterwards find the table forbids their transition and leave it.
#pragma once

#include <pqxx/pqxx>

#include <string_view>

#include "infra/store/organizations/organizations.h"

namespace payrail::infra::store::organizations {

WoundDown wind_down(pqxx::work& tx, std::string_view org_id, std::string_view actor);

}  // namespace payrail::infra::store::organizations
