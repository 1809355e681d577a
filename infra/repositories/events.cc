#include "infra/repositories/events.h"

#include "infra/ids.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/sql.h"
#include "infra/time/clock.h"
#include "topics/registry.h"

namespace payrail::infra::repositories::events {
namespace {

#define PAYRAIL_EVENT_COLUMNS \
  "id, org_id, mode, type, resource_id, sequence, payload, " PAYRAIL_TIMESTAMP("created_at")

constexpr pg::Statement kInsert{
    "events_insert",
    "INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, payload) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"};

constexpr pg::Statement kFind{"events_find",
                              "SELECT " PAYRAIL_EVENT_COLUMNS " FROM events WHERE id = $1"};

constexpr pg::Statement kList{"events_list", "SELECT " PAYRAIL_EVENT_COLUMNS
                                             " FROM events WHERE ($7::text IS NULL OR "
                                             "type = $7) AND" PAYRAIL_KEYSET_CONDITIONS("events")
                                                 PAYRAIL_KEYSET_ORDER};

EventRow read_row(const pqxx::row& row) {
  return EventRow{row[0].as<std::string>(),
                  row[1].as<std::string>(),
                  *model::parse_mode(row[2].as<std::string>()),
                  row[3].as<std::string>(),
                  row[4].as<std::string>(),
                  row[5].as<int>(),
                  row[6].as<std::string>(),
                  row[7].as<std::string>()};
}

}  // namespace

std::string append(pqxx::work& tx, const NewEvent& event, const PayloadWriter& payload) {
  const auto id = new_id("evt_");
  const auto occurred_at = time::format_utc(time::now_utc());
  pg::exec(tx, kInsert, id, event.org_id, std::string(model::mode_name(event.mode)), event.type,
           event.resource_type, event.resource_id, event.sequence, payload(id, occurred_at));
  outbox::enqueue(tx, topics::kEvents, event.org_id, event.mode, id);
  return id;
}

model::Result<std::optional<EventRow>> find(pg::Pool& pool, std::string_view event_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<EventRow>> {
    const auto rows = pg::exec(tx, kFind, std::string(event_id));
    if (rows.empty()) return std::optional<EventRow>();
    return std::optional<EventRow>(read_row(rows[0]));
  });
}

model::Result<Page<EventRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                   const std::optional<std::string>& type, const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<EventRow>> {
    std::vector<EventRow> rows;
    for (const auto& row : pg::exec(
             tx, kList, std::string(org_id), std::string(model::mode_name(mode)), query.limit + 1,
             query.starting_after, query.created_gte, query.created_lte, type)) {
      rows.push_back(read_row(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

}  // namespace payrail::infra::repositories::events
