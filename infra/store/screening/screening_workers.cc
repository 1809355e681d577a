#include "infra/store/sql/deferred_writes.h"
#include "infra/store/screening/screening_workers.h"

#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::screening_workers {
namespace {

constexpr pg::Statement kHeartbeat{
    "screening_heartbeat",
    "INSERT INTO screening_workers (worker_id, list_version, heartbeat_at) VALUES ($1, $2, now()) "
    "ON CONFLICT (worker_id) DO UPDATE SET list_version = EXCLUDED.list_version, "
    "heartbeat_at = now()"};

constexpr pg::Statement kAvailable{"screening_available",
                                   "SELECT 1 FROM screening_workers WHERE list_version IS NOT NULL "
                                   "AND heartbeat_at > now() - make_interval(secs => $1) LIMIT 1"};

// The columns list_live() maps, by name (sql::column).
constexpr sql::Text kLiveColumns = "worker_id, list_version";
constexpr auto kLiveSql = sql::concat(
    "SELECT ", kLiveColumns,
    " FROM screening_workers WHERE heartbeat_at > now() - make_interval(secs => $1) ORDER BY "
    "worker_id");
constexpr pg::Statement kLive{"screening_live", kLiveSql.c_str()};

constexpr auto kNotifyDecisionsSql =
    sql::concat("SELECT pg_notify('", kDecisionChannel, "', id) FROM unnest($1::text[]) AS id");
constexpr pg::Statement kNotifyDecisions{"screening_notify_decisions", kNotifyDecisionsSql.c_str()};

void ignore_returned(const pqxx::row&) {}  // one empty row per notice

}  // namespace

void notify_decision(pqxx::work& tx, const std::string& resource_id) {
  store::defer_row(tx, kNotifyDecisions, store::LockOrder::notifications, {resource_id}, ignore_returned);
}

model::Result<std::vector<LiveWorker>> list_live(pg::Pool& pool) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<LiveWorker>> {
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kLiveColumns, name);
    };
    std::vector<LiveWorker> workers;
    for (const auto& row : pg::exec(tx, kLive, kHeartbeatFreshSeconds)) {
      workers.push_back(
          {row[at("worker_id")].as<std::string>(), optional_text(row[at("list_version")])});
    }
    return workers;
  });
}

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

}  // namespace payrail::infra::store::screening_workers
