#include "infra/repositories/screening_workers.h"

namespace payrail::infra::repositories::screening_workers {
namespace {

constexpr pg::Statement kHeartbeat{
    "screening_heartbeat",
    "INSERT INTO screening_workers (worker_id, list_version, heartbeat_at) VALUES ($1, $2, now()) "
    "ON CONFLICT (worker_id) DO UPDATE SET list_version = EXCLUDED.list_version, "
    "heartbeat_at = now()"};

constexpr pg::Statement kAvailable{"screening_available",
                                   "SELECT 1 FROM screening_workers WHERE list_version IS NOT NULL "
                                   "AND heartbeat_at > now() - make_interval(secs => $1) LIMIT 1"};

}  // namespace

model::Status heartbeat(pg::Pool& pool, const std::string& worker_id,
                        const std::optional<std::string>& list_version) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kHeartbeat, worker_id, list_version);
    return model::ok_status();
  });
}

model::Result<bool> sanctions_available(pg::Pool& pool) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return !pg::exec(tx, kAvailable, kHeartbeatFreshSeconds).empty();
  });
}

}  // namespace payrail::infra::repositories::screening_workers
