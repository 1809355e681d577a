#include "infra/store/organizations/wind_down.h"

#include <string>
#include <vector>

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/collections/collections.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/organizations/audit.h"
#include "infra/store/payouts/payouts.h"

namespace payrail::infra::store::organizations {
namespace {

constexpr pg::Statement kUnsentPayouts{
    "wind_down_unsent_payouts",
    "SELECT id FROM payouts WHERE org_id = $1 AND status = ANY($2::text[]) ORDER BY id"};
constexpr pg::Statement kUnsentFiatPayouts{
    "wind_down_unsent_fiat_payouts",
    "SELECT id FROM fiat_payouts WHERE org_id = $1 AND status = ANY($2::text[]) ORDER BY id"};
constexpr pg::Statement kWaitingCollections{
    "wind_down_waiting_collections",
    "SELECT id FROM collections WHERE org_id = $1 AND status = 'awaiting_payment' ORDER BY id"};

// The statuses a lifecycle table can cancel from, by name.
template <class Rows, class Trigger, class Name>
std::string cancelable_statuses(const Rows& rows, Trigger cancel, Name name) {
  std::vector<std::string> statuses;
  for (const auto& row : rows) {
    if (row.trigger == cancel && row.from) statuses.emplace_back(name(*row.from));
  }
  return pg::sql_array(statuses);
}

std::vector<std::string> ids_of(pqxx::work& tx, const pg::Statement& statement,
                                std::string_view org_id,
                                const std::optional<std::string>& statuses = std::nullopt) {
  std::vector<std::string> ids;
  const auto rows = statuses ? pg::exec(tx, statement, std::string(org_id), *statuses)
                             : pg::exec(tx, statement, std::string(org_id));
  for (const auto& row : rows) ids.push_back(row["id"].as<std::string>());
  return ids;
}

void audit_cancel(pqxx::work& tx, std::string_view actor, std::string_view org_id,
                  const std::string& resource_type, const std::string& id) {
  audit::record(tx, {.actor = std::string(actor),
                     .action = resource_type + ".cancelled",
                     .org_id = std::string(org_id),
                     .resource_type = resource_type,
                     .resource_id = id,
                     .details = "organization closed"});
}

}  // namespace

WoundDown wind_down(pqxx::work& tx, std::string_view org_id, std::string_view actor) {
  WoundDown cancelled;
  const auto payout_statuses = cancelable_statuses(
      model::payout_transitions(), model::PayoutTrigger::cancel, model::payout_status_name);
  // Each row is locked and read again: a worker may have sent it while the close waited.
  for (const auto& id : ids_of(tx, kUnsentPayouts, org_id, payout_statuses)) {
    const auto payout = payouts::lock(tx, id);
    if (!payout || !payouts::transition(tx, *payout, model::PayoutTrigger::cancel)) continue;
    audit_cancel(tx, actor, org_id, "payout", id);
    ++cancelled.payouts;
  }
  const auto fiat_statuses =
      cancelable_statuses(model::fiat_payout_transitions(), model::FiatPayoutTrigger::cancel,
                          model::fiat_payout_status_name);
  for (const auto& id : ids_of(tx, kUnsentFiatPayouts, org_id, fiat_statuses)) {
    const auto payout = fiat_payouts::lock(tx, id);
    if (!payout || !fiat_payouts::transition(tx, *payout, model::FiatPayoutTrigger::cancel,
                                             {.actor = std::string(actor)})) {
      continue;
    }
    audit_cancel(tx, actor, org_id, "fiat_payout", id);
    ++cancelled.fiat_payouts;
  }
  for (const auto& id : ids_of(tx, kWaitingCollections, org_id)) {
    const auto collection = collections::lock(tx, id);
    if (!collection || !collections::cancel(tx, *collection, actor).ok()) continue;
    audit_cancel(tx, actor, org_id, "collection", id);
    ++cancelled.collections;
  }
  return cancelled;
}

}  // namespace payrail::infra::store::organizations
