#include "infra/store/webhooks/events.h"

#include <stdexcept>

#include "infra/plumbing/ids.h"
#include "infra/plumbing/time/clock.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/sql/sql.h"
#include "topics/registry.h"

namespace payrail::infra::store::events {
namespace {

// The columns read_row() maps, by name (sql::column).
constexpr auto kColumns = sql::concat("id, org_id, mode, type, resource_id, sequence, payload, ",
                                      sql::timestamp("created_at"));

// Both statements are deferred to the end of the transaction (store::defer_row): a worker batch's
// events are two statements, whatever their number.
//
// The insert's foreign key takes each organization row FOR KEY SHARE at the end of the statement
// (the constraint is not deferrable, and must stay so). That orders this transaction against
// webhook endpoint creation, which holds that row FOR UPDATE until it commits: an endpoint created
// first makes this statement wait until it is committed, so the next statement (a fresh snapshot)
// sees it; an endpoint created later waits for this transaction to end. Either way, every endpoint
// that exists when the event commits is seen by kEnqueueForSubscribers. (An explicit lock in the
// statement made PostgreSQL plan it afresh at every execution: its generic plan, costed for ten
// array elements, never won against the custom ones.)
constexpr pg::Statement kInsert{"events_insert", R"sql(
INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, payload)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                     $7::integer[], $8::text[]))sql"};

// The `events` message exists only when an endpoint of the organization and mode subscribes to
// the type: events no one subscribes to cost the relay, the broker and the webhook worker
// nothing. Must run in a later statement than kInsert (see there). Returns the messages written,
// for the hand-over to this process's relay (outbox::publish_after_commit).
constexpr auto kEnqueueForSubscribersSql = sql::concat(R"sql(
INSERT INTO outbox (message_id, topic, message_key, payload, next_attempt_at)
SELECT message_id, topic, message_key, payload, now() + lease_ms * interval '1 millisecond'
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::bigint[])
  AS n(message_id, topic, message_key, payload, org_id, mode, type, lease_ms)
WHERE EXISTS (SELECT 1 FROM webhook_endpoints endpoint
              WHERE endpoint.org_id = n.org_id AND endpoint.mode = n.mode AND endpoint.active
                AND endpoint.deleted_at IS NULL AND n.type = ANY (endpoint.events))
RETURNING )sql",
                                                       outbox::kInsertedColumns);
constexpr pg::Statement kEnqueueForSubscribers{"events_enqueue_for_subscribers",
                                               kEnqueueForSubscribersSql.c_str()};

constexpr auto kFindSql = sql::concat("SELECT ", kColumns, " FROM events WHERE id = $1");
constexpr pg::Statement kFind{"events_find", kFindSql.c_str()};

constexpr auto kListSql =
    sql::concat("SELECT ", kColumns, " FROM events WHERE ($7::text IS NULL OR type = $7) AND",
                keyset_conditions("events"), keyset_order("events"));
constexpr pg::Statement kList{"events_list", kListSql.c_str(), pg::Plan::custom};

EventRow read_row(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  return EventRow{row[at("id")].as<std::string>(),
                  row[at("org_id")].as<std::string>(),
                  *model::parse_mode(row[at("mode")].as<std::string>()),
                  row[at("type")].as<std::string>(),
                  row[at("resource_id")].as<std::string>(),
                  row[at("sequence")].as<int>(),
                  row[at("payload")].as<std::string>(),
                  row[at("created_at")].as<std::string>()};
}

}  // namespace

std::string append(pqxx::work& tx, const NewEvent& event, const PayloadWriter& payload) {
  const auto id = new_id("evt_");
  const auto occurred_at = time::format_utc(time::now_utc());
  const auto mode = std::string(model::mode_name(event.mode));
  store::defer_row(tx, kInsert, store::LockOrder::events,
                {id, event.org_id, mode, event.type, event.resource_type, event.resource_id,
                 std::to_string(event.sequence), payload(id, occurred_at)});
  const auto message = outbox::new_message(topics::kEvents, event.org_id, event.mode, id);
  store::defer_row(tx, kEnqueueForSubscribers, store::LockOrder::event_messages,
                {message.message_id, std::string(topics::kEvents.name), id, topics::encode(message),
                 event.org_id, mode, event.type, std::to_string(outbox::own_relay_lease_ms())},
                outbox::hand_over_leased);
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

}  // namespace payrail::infra::store::events
