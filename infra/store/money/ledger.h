// The double-entry ledger. Every balance change is a journal entry with two postings that sum to
// zero, applied together with the balance row in the caller's transaction. Movements are data
// (kMovements in ledger.cc): which account is debited and which credited.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"
#include "schemas/model/payouts/payout_lifecycle.h"

namespace payrail::infra::store::ledger {

enum class Movement {
  sandbox_funding,  // test mode seed: sandbox_funding -> available
  hold,             // payout created: available -> held
  release,          // blocked, cancelled, rejected: held -> available
  refund,           // failed broadcast: held -> available
  settle,           // completed: held -> payouts_sent
  settle_fiat,      // fiat payout completed: held -> fiat_payouts_sent
  credit,           // collection settled: collections_received -> available
};

// The movement of a lifecycle row's money effect (schemas/model/payouts/payout_lifecycle.h);
// `settle_as` is where a completed payout's hold goes (settle for payouts, settle_fiat for fiat
// payouts).
std::optional<Movement> movement_of(model::MoneyEffect effect, Movement settle_as);

enum class Applied { applied, already_applied, insufficient_balance };

// Applies `movement` of `amount` (a decimal string) for `resource_id`. A payout's hold and its
// one outcome (release, refund or settle), and a collection's credit, can each be applied only
// once. A hold changes the balance at once (it may find it short), after writing what the
// transaction deferred so far (store::flush_deferred_early: not in a grouped transaction); applied
// before, it returns already_applied and changes nothing. In the first pass of a group of creates
// (store::grouped) a hold is deferred like the others and returns applied: a balance it does not fit
// fails the transaction at the commit, and the group is applied again request by request (see
// store::GroupedWrites), where the hold answers insufficient_balance. Every other movement is written,
// its journal entry with its balance change, just before the transaction commits (store::defer_row),
// so a read of the journal or the balance in the same transaction does not see it yet: a second one
// for the resource in the same transaction returns already_applied and changes nothing; one whose
// entry an earlier transaction wrote fails the transaction at the commit (the callers apply
// movements through status-guarded transitions, which never do that).
Applied apply(pqxx::work& tx, std::string_view org_id, model::Mode mode, std::string_view asset,
              Movement movement, std::optional<std::string_view> resource_id,
              const std::string& amount);

// The order transactions take balance row locks in: the deferred balance changes lock theirs
// sorted so (ORDER BY ... COLLATE "C"), and a group of creates (store::GroupedWrites) is written in
// the order of these keys, so neither waits for the other in a cycle.
std::string balance_key(std::string_view org_id, model::Mode mode, std::string_view asset);

// Creates the zero balances of a new organization (both modes, every asset) and funds the test
// mode sandbox (1,000,000 USDC, 1,000,000 USDT, 1,000 ETH).
void open_accounts(pqxx::work& tx, std::string_view org_id);

struct BalanceRow {
  std::string asset;
  std::string available;  // decimal text at the asset's precision
  std::string held;
};

// The organization's balances in `mode`, one per asset (USDC, USDT, ETH).
model::Result<std::vector<BalanceRow>> balances(pg::Pool& pool, std::string_view org_id,
                                                model::Mode mode);

}  // namespace payrail::infra::store::ledger
