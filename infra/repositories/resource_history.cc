#include "infra/repositories/resource_history.h"

#include <map>

#include "infra/repositories/sql.h"

namespace payrail::infra::repositories::resource_history {
namespace {

constexpr int kEventsMax = 200;
constexpr int kAttemptsMax = 50;

// A payout's approve and reject are the only transitions a person makes; approved_by says who.
constexpr pg::Statement kPayoutTimeline{"resource_history_payout_timeline",
                                        R"sql(
SELECT t.from_status, t.to_status, t.trigger,
       CASE WHEN t.trigger IN ('approve', 'reject') THEN p.approved_by END, )sql" PAYRAIL_TIMESTAMP(
                                            "t.occurred_at") R"sql(
FROM payout_transitions t JOIN payouts p ON p.id = t.payout_id
WHERE t.payout_id = $1 ORDER BY t.id)sql"};

constexpr pg::Statement kResourceTimeline{"resource_history_resource_timeline", R"sql(
SELECT from_status, to_status, trigger, actor, )sql" PAYRAIL_TIMESTAMP("occurred_at") R"sql(
FROM resource_transitions WHERE resource_id = $1 AND resource_type = $2 ORDER BY id)sql"};

constexpr pg::Statement kEventsOf{
    "resource_history_events_of",
    "SELECT id, org_id, mode, type, resource_id, sequence, payload, " PAYRAIL_TIMESTAMP(
        "created_at") " FROM events WHERE resource_id = $1 AND org_id = $2 AND mode = $3 "
                      "ORDER BY sequence LIMIT $4"};

constexpr pg::Statement kDeliveriesOfEvent{
    "resource_history_deliveries_of_event",
    "SELECT d.id, d.endpoint_id, e.url, d.status, d.attempt_count, " PAYRAIL_TIMESTAMP(
        "d.next_attempt_at") " FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = "
                             "d.endpoint_id WHERE d.event_id = $1 AND d.org_id = $2 AND "
                             "d.mode = $3 ORDER BY d.created_at, d.id"};

constexpr pg::Statement kAttemptsOfEvent{
    "resource_history_attempts_of_event",
    "SELECT delivery_id, number, " PAYRAIL_TIMESTAMP(
        "attempted_at") ", status_code, latency_ms, error FROM (SELECT a.*, row_number() OVER "
                        "(PARTITION BY a.delivery_id ORDER BY a.number DESC) AS newest "
                        "FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = "
                        "a.delivery_id WHERE d.event_id = $1 AND d.org_id = $2 AND d.mode = $3) "
                        "recent WHERE newest <= $4 ORDER BY delivery_id, number"};

constexpr pg::Statement kPayoutOwned{
    "resource_history_payout_owned",
    "SELECT 1 FROM payouts WHERE id = $1 AND org_id = $2 AND mode = $3"};
constexpr pg::Statement kFiatPayoutOwned{
    "resource_history_fiat_payout_owned",
    "SELECT 1 FROM fiat_payouts WHERE id = $1 AND org_id = $2 AND mode = $3"};
constexpr pg::Statement kCollectionOwned{
    "resource_history_collection_owned",
    "SELECT 1 FROM collections WHERE id = $1 AND org_id = $2 AND mode = $3"};

TimelineRow read_timeline_row(const pqxx::row& row) {
  return TimelineRow{optional_text(row[0]), row[1].as<std::string>(), row[2].as<std::string>(),
                     optional_text(row[3]), row[4].as<std::string>()};
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
  const auto rows = resource_type == "payout" ? pg::exec(tx, kPayoutTimeline, std::string(id))
                                              : pg::exec(tx, kResourceTimeline, std::string(id),
                                                         std::string(resource_type));
  std::vector<TimelineRow> changes;
  for (const auto& row : rows) changes.push_back(read_timeline_row(row));
  return changes;
}

std::vector<events::EventRow> events_of(pqxx::transaction_base& tx, std::string_view org_id,
                                        model::Mode mode, std::string_view resource_id) {
  std::vector<events::EventRow> found;
  for (const auto& row : pg::exec(tx, kEventsOf, std::string(resource_id), std::string(org_id),
                                  std::string(model::mode_name(mode)), kEventsMax)) {
    found.push_back(events::EventRow{row[0].as<std::string>(), row[1].as<std::string>(), mode,
                                     row[3].as<std::string>(), row[4].as<std::string>(),
                                     row[5].as<int>(), row[6].as<std::string>(),
                                     row[7].as<std::string>()});
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
    by_id[row[0].as<std::string>()] = deliveries.size();
    deliveries.push_back(EventDeliveryRow{row[0].as<std::string>(),
                                          row[1].as<std::string>(),
                                          row[2].as<std::string>(),
                                          row[3].as<std::string>(),
                                          row[4].as<int>(),
                                          optional_text(row[5]),
                                          {}});
  }
  for (const auto& row : pg::exec(tx, kAttemptsOfEvent, std::string(event_id), std::string(org_id),
                                  mode_text, kAttemptsMax)) {
    const auto found = by_id.find(row[0].as<std::string>());
    if (found == by_id.end()) continue;
    deliveries[found->second].attempts.push_back(
        AttemptRow{row[1].as<int>(), row[2].as<std::string>(),
                   row[3].is_null() ? std::nullopt : std::optional<int>(row[3].as<int>()),
                   row[4].as<long>(), optional_text(row[5])});
  }
  return deliveries;
}

}  // namespace payrail::infra::repositories::resource_history
