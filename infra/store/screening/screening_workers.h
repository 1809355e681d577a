// Liveness of screening workers and the sanctions list version each has loaded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::screening_workers {

constexpr int kHeartbeatFreshSeconds = 15;

model::Status heartbeat(pg::Pool& pool, const std::string& worker_id,
                        const std::optional<std::string>& list_version);

struct LiveWorker {
  std::string worker_id;
  std::optional<std::string> list_version;  // nullopt: no lists loaded
};

// Screening workers that reported within kHeartbeatFreshSeconds, with the version each uses.
model::Result<std::vector<LiveWorker>> list_live(pg::Pool& pool);

// True when some screening worker with loaded sanctions lists reported in recently.
model::Result<bool> sanctions_available(pg::Pool& pool);

// The channel the API's creates wait on for a screening decision (api/payout_decisions.h); the
// notice's payload is the payout's or fiat payout's id.
inline constexpr char kDecisionChannel[] = "payout_decisions";

// Tells the waiters that `resource_id` was decided, when the transaction commits. Deferred
// (store::defer_row): a screening batch's notices are one statement.
void notify_decision(pqxx::work& tx, const std::string& resource_id);

}  // namespace payrail::infra::store::screening_workers
