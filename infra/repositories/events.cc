#include "infra/repositories/events.h"

#include <stdexcept>

#include "infra/ids.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/sql.h"
#include "infra/time/clock.h"
#include "topics/registry.h"

namespace payrail::infra::repositories::events {
namespace {

#define PAYRAIL_EVENT_COLUMNS \
  "id, org_id, mode, type, resource_id, sequence, payload, " PAYRAIL_TIMESTAMP("created_at")

// The organization row FOR KEY SHARE (the lock its foreign key takes anyway, taken here on
// purpose) orders this transaction against webhook endpoint creation, which holds that row FOR
// UPDATE until it commits: an endpoint created first makes this statement wait until it is
// committed, so the next statement (a fresh snapshot) sees it; an endpoint created later waits
// for this transaction to end. Either way, every endpoint that exists when the event commits is
// seen by kEnqueueForSubscribers.
constexpr pg::Statement kInsert{
    "events_insert",
    "WITH organization AS (SELECT 1 FROM organizations WHERE id = $2 FOR KEY SHARE) "
    "INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, payload) "
    "SELECT $1, $2, $3, $4, $5, $6, $7::integer, $8 FROM organization"};

// The `events` message exists only when an endpoint of the organization and mode subscribes to
// the type: events no one subscribes to cost the relay, the broker and the webhook worker
// nothing. Must run in a later statement than kInsert (see there).
constexpr pg::Statement kEnqueueForSubscribers{
    "events_enqueue_for_subscribers",
    "INSERT INTO outbox (message_id, topic, message_key, payload, next_attempt_at) "
    "SELECT $1, $2, $3, $4, now() + $8::bigint * interval '1 millisecond' WHERE EXISTS (SELECT 1 "
    "FROM webhook_endpoints WHERE org_id = $5 AND mode = $6 AND active "
    "AND deleted_at IS NULL AND $7 = ANY (events)) RETURNING id"};

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
  const auto mode = std::string(model::mode_name(event.mode));
  const auto inserted =
      pg::exec(tx, kInsert, id, event.org_id, mode, event.type, event.resource_type,
               event.resource_id, event.sequence, payload(id, occurred_at));
  if (inserted.affected_rows() != 1) throw std::logic_error("event of an unknown organization");
  const auto message = outbox::new_message(topics::kEvents, event.org_id, event.mode, id);
  const auto lease_ms = outbox::own_relay_lease_ms();
  auto encoded = topics::encode(message);
  const auto enqueued =
      pg::exec(tx, kEnqueueForSubscribers, message.message_id, std::string(topics::kEvents.name),
               id, encoded, event.org_id, mode, event.type, lease_ms);
  if (!enqueued.empty() && lease_ms > 0) {
    outbox::publish_after_commit(enqueued[0][0].as<long>(), topics::kEvents, id,
                                 std::move(encoded));
  }
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
