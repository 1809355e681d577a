// Balance transactions (GET /v1/balance-transactions): the journal (ledger.h) of one organization
// and mode read back as movements of its balance, newest first in journal order, each with its
// signed effect on `available` and `held` and the balances right after it.
//
// The balances after an entry are the current balances less the effects of every later entry of
// the same asset, computed in the same statement (one snapshot), so they always add up: the
// newest entry's are the balances GET /v1/balances shows. Reading a page costs the entries since
// its oldest one, so the first pages are cheap and a page far back reads everything after it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::balance_transactions {

struct BalanceTransactionRow {
  std::int64_t entry_id = 0;
  std::string kind;  // the journal's: sandbox_funding, hold, release, refund, settle, credit
  std::optional<std::string> resource_id;
  std::string asset;
  std::string amount;            // the movement, positive, at the asset's precision
  std::string available_change;  // signed
  std::string held_change;       // signed
  std::string available_after;
  std::string held_after;
  std::string created_at;
};

struct Filters {
  std::optional<std::string> asset;
  std::optional<std::string> kind;
};

// `query.starting_after` is the entry id (decimal text) of the previous page's last item.
model::Result<Page<BalanceTransactionRow>> list(pg::Pool& pool, std::string_view org_id,
                                                model::Mode mode, const Filters& filters,
                                                const ListQuery& query);

// Whether the entry is the organization's in that mode (a valid `starting_after`).
model::Result<bool> entry_exists(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                 std::int64_t entry_id);

}  // namespace payrail::infra::store::balance_transactions
