// Broadcast attempts: the execution worker records its intent before calling the chain adapter
// and the outcome after, so a crash in between is visible and the retry reuses the reference.
#pragma once

#include <pqxx/pqxx>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::broadcasts {

struct Broadcast {
  std::string reference;
  std::optional<std::string> outcome;  // broadcast | rejected
  std::optional<std::string> tx_hash;
  std::optional<std::string> failure_reason;
  bool written = false;  // this statement recorded it (not an earlier one)
};

// The attempt's columns payouts::lock_all_with_broadcasts() reads after each payout's, ending its
// row (NULL when the payout has none), and keep_attempt() keeps that row for begin() and finish():
// an execution batch reads its attempts with the statement that locks its payouts.
inline constexpr sql::Text kKeptAttemptColumns =
    "b.payout_id, b.reference, b.outcome, b.tx_hash, b.failure_reason";
// `first_column` is where kKeptAttemptColumns start in `row` (sql::column_count of the payout's
// columns before them); they must end it (std::logic_error otherwise).
void keep_attempt(pqxx::work& tx, const std::string& payout_id, const pqxx::row& row,
                  int first_column);

// Each takes the payout's row lock first (payouts::lock).
// Records the intent (idempotent) and returns the current attempt: the attempt kept with the
// payout's lock when there is one, else one statement.
Broadcast begin(pqxx::work& tx, const std::string& payout_id);
// Records the intent of a payout that has none, because it was `approved` until this transaction
// (which moved it to processing), and returns it. The write is deferred to the commit (one
// statement for an execution batch's new intents), which comes before any adapter call.
Broadcast record_intent(pqxx::work& tx, const std::string& payout_id);
// Records the outcome once; a second call changes nothing. Returns the recorded attempt: with this
// outcome, or with the one recorded first (nullopt when no intent was recorded). With the attempt
// kept with the payout's lock and no outcome recorded yet, the write is deferred to the commit
// (one statement for the batch's outcomes); otherwise it is one statement.
std::optional<Broadcast> finish(pqxx::work& tx, const std::string& payout_id, bool accepted,
                                const std::string& tx_hash, const std::string& failure_reason);
std::optional<Broadcast> find(pqxx::work& tx, const std::string& payout_id);
// What a settlement batch reads of its payouts' broadcasts, with one statement and no lock:
// milliseconds until `delay_ms` after each broadcast finished (database time; 0 when past, no
// entry when there is no broadcast) and each broadcast as recorded then.
struct Settling {
  RemainingDelays remaining_ms;
  std::map<std::string, Broadcast> recorded;
};
Settling settling(pqxx::transaction_base& tx, const std::vector<std::string>& payout_ids,
                  long delay_ms);

}  // namespace payrail::infra::store::broadcasts
