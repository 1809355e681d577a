#include "infra/store/lifecycle/resource_history.h"

#include <map>

#include "infra/store/sql/sql.h"

namespace payrail::infra::store::resource_history {
namespace {

constexpr int kEventsMax = 200;
constexpr int kAttemptsMax = 50;

// A resource's changes from the one transitions log, oldest first; `actor` names the member or
// operator who made one (a payout's approval, say), null for the system.
constexpr auto kTimelineSql = sql::concat(
    "SELECT from_status, to_status, trigger, actor, ", sql::timestamp("occurred_at"),
    " FROM resource_transitions WHERE resource_id = $1 AND resource_type = $2 ORDER BY id");
constexpr pg::Statement kTimeline{"resource_history_timeline", kTimelineSql.c_str()};

constexpr auto kEventsOfSql = sql::concat(
    "SELECT id, org_id, mode, type, resource_id, sequence, payload, ", sql::timestamp("created_at"),
    " FROM events WHERE resource_id = $1 AND org_id = $2 AND mode = $3 ORDER BY sequence LIMIT "
    "$4");
constexpr pg::Statement kEventsOf{"resource_history_events_of", kEventsOfSql.c_str()};

constexpr auto kDeliveriesOfEventSql = sql::concat(
    "SELECT d.id, d.endpoint_id, e.url, d.status, d.attempt_count, ",
    sql::timestamp("d.next_attempt_at", "next_attempt_at"),
    " FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE "
    "d.event_id = $1 AND d.org_id = $2 AND d.mode = $3 ORDER BY d.created_at, d.id");
constexpr pg::Statement kDeliveriesOfEvent{"resource_history_deliveries_of_event",
                                           kDeliveriesOfEventSql.c_str()};

constexpr auto kAttemptsOfEventSql = sql::concat(
    "SELECT delivery_id, number, ", sql::timestamp("attempted_at"),
    ", status_code, latency_ms, error FROM (SELECT a.*, row_number() OVER (PARTITION BY "
    "a.delivery_id ORDER BY a.number DESC) AS newest FROM webhook_attempts a JOIN "
    "webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1 AND d.org_id = $2 AND "
    "d.mode = $3) recent WHERE newest <= $4 ORDER BY delivery_id, number");
constexpr pg::Statement kAttemptsOfEvent{"resource_history_attempts_of_event",
                                         kAttemptsOfEventSql.c_str()};

constexpr pg::Statement kPayoutOwned{
    "resource_history_payout_owned",
    "SELECT 1 FROM payouts WHERE id = $1 AND org_id = $2 AND mode = $3"};
constexpr pg::Statement kFiatPayoutOwned{
    "resource_history_fiat_payout_owned",
    "SELECT 1 FROM fiat_payouts WHERE id = $1 AND org_id = $2 AND mode = $3"};
constexpr pg::Statement kCollectionOwned{
    "resource_history_collection_owned",
    "SELECT 1 FROM collections WHERE id = $1 AND org_id = $2 AND mode = $3"};

// Console views, not hot paths: fields are found by their names in each result.
TimelineRow read_timeline_row(const pqxx::row& row) {
  return TimelineRow{optional_text(row["from_status"]), row["to_status"].as<std::string>(),
                     row["trigger"].as<std::string>(), optional_text(row["actor"]),
                     row["occurred_at"].as<std::string>()};
}

}  // namespace

bool belongs_to(pqxx::transaction_base& tx, std::string_view resource_type, std::string_view id,
                std::string_view org_id, model::Mode mode) {
  const pg::Statement* statement = resource_type == "payout"        ? &kPayoutOwned
                                   : resource_type == "fiat_payout" ? &kFiatPayoutOwned
                                   : resource_type == "collection"  ? &kCollectionOwned
                                                                    : nullptr;
  if (statement == nullptr) return false;
  return !pg::exec(tx, *statement, std::string(id), std::string(org_id),
                   std::string(model::mode_name(mode)))
              .empty();
}

std::vector<TimelineRow> timeline(pqxx::transaction_base& tx, std::string_view resource_type,
                                  std::string_view id) {
  const auto rows = pg::exec(tx, kTimeline, std::string(id), std::string(resource_type));
  std::vector<TimelineRow> changes;
  for (const auto& row : rows) changes.push_back(read_timeline_row(row));
  return changes;
}

std::vector<events::EventRow> events_of(pqxx::transaction_base& tx, std::string_view org_id,
                                        model::Mode mode, std::string_view resource_id) {
  std::vector<events::EventRow> found;
  for (const auto& row : pg::exec(tx, kEventsOf, std::string(resource_id), std::string(org_id),
                                  std::string(model::mode_name(mode)), kEventsMax)) {
    found.push_back(events::EventRow{row["id"].as<std::string>(), row["org_id"].as<std::string>(),
                                     mode, row["type"].as<std::string>(),
                                     row["resource_id"].as<std::string>(),
                                     row["sequence"].as<int>(), row["payload"].as<std::string>(),
                                     row["created_at"].as<std::string>()});
  }
  return found;
}

std::vector<EventDeliveryRow> deliveries_of_event(pqxx::transaction_base& tx,
                                                  std::string_view org_id, model::Mode mode,
                                                  std::string_view event_id) {
  const auto mode_text = std::string(model::mode_name(mode));
  std::vector<EventDeliveryRow> deliveries;
  std::map<std::string, std::size_t> by_id;
  for (const auto& row :
       pg::exec(tx, kDeliveriesOfEvent, std::string(event_id), std::string(org_id), mode_text)) {
    by_id[row["id"].as<std::string>()] = deliveries.size();
    deliveries.push_back(EventDeliveryRow{row["id"].as<std::string>(),
                                          row["endpoint_id"].as<std::string>(),
                                          row["url"].as<std::string>(),
                                          row["status"].as<std::string>(),
                                          row["attempt_count"].as<int>(),
                                          optional_text(row["next_attempt_at"]),
                                          {}});
  }
  for (const auto& row : pg::exec(tx, kAttemptsOfEvent, std::string(event_id), std::string(org_id),
                                  mode_text, kAttemptsMax)) {
    const auto found = by_id.find(row["delivery_id"].as<std::string>());
    if (found == by_id.end()) continue;
    const auto status_code = row["status_code"];
    deliveries[found->second].attempts.push_back(AttemptRow{
        row["number"].as<int>(), row["attempted_at"].as<std::string>(),
        status_code.is_null() ? std::nullopt : std::optional<int>(status_code.as<int>()),
        row["latency_ms"].as<long>(), optional_text(row["error"])});
  }
  return deliveries;
}

}  // namespace payrail::infra::store::resource_history
