// Broadcast attempts: the execution worker records its intent before calling the chain adapter
// and the outcome after, so a crash in between is visible and the retry reuses the reference.
#pragma once

#include <pqxx/pqxx>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "infra/repositories/sql.h"

namespace payrail::infra::repositories::broadcasts {

struct Broadcast {
  std::string reference;
  std::optional<std::string> outcome;  // broadcast | rejected
  std::optional<std::string> tx_hash;
  std::optional<std::string> failure_reason;
  bool written = false;  // this statement recorded it (not an earlier one)
};

// Both take the payout's row lock first (payouts::lock), and each is one statement.
// Records the intent (idempotent) and returns the current attempt.
Broadcast begin(pqxx::work& tx, const std::string& payout_id);
// Records the outcome once; a second call changes nothing. Returns the recorded attempt: with
// this outcome, or with the one recorded first (nullopt when no intent was recorded).
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

}  // namespace payrail::infra::repositories::broadcasts
