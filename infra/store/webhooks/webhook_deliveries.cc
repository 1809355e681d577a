#include "infra/store/webhooks/webhook_deliveries.h"

#include <map>

#include "infra/plumbing/ids.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"
#include "schemas/model/webhooks/retry_schedule.h"

namespace payrail::infra::store::webhook_deliveries {
namespace {

// Shown for an attempt until its outcome is recorded; stays if the worker died during it.
constexpr const char* kAttemptInFlight =
    "no outcome recorded: the attempt is in flight, or its worker stopped during it";

// The event's columns schedule_for_subscribers() reads, by name.
constexpr sql::Text kOwnEventColumns = "org_id, mode, type";
constexpr auto kFindOwnEventSql = sql::concat(
    "SELECT ", kOwnEventColumns, " FROM events WHERE id = $1 AND org_id = $2 AND mode = $3");
constexpr pg::Statement kFindOwnEvent{"webhook_deliveries_find_own_event",
                                      kFindOwnEventSql.c_str()};

// FOR SHARE: a concurrent delete waits for this transaction, then cancels what it created. The
// column schedule_for_subscribers() reads, by name:
constexpr sql::Text kSubscribedColumns = "id";
constexpr auto kSubscribedEndpointsSql =
    sql::concat("SELECT ", kSubscribedColumns,
                " FROM webhook_endpoints WHERE org_id = $1 AND mode = $2 AND active AND "
                "deleted_at IS NULL AND $3 = ANY (events) ORDER BY id FOR SHARE");
constexpr pg::Statement kSubscribedEndpoints{"webhook_deliveries_subscribed_endpoints",
                                             kSubscribedEndpointsSql.c_str()};

// The fan-out rule, for a batch or for one message. One row per message: consumed before (a missing
// outbox row counts as consumed, as in outbox::is_consumed), and its event's subscribed endpoints.
// The endpoints are locked FOR SHARE in id order, as kSubscribedEndpoints locks them, and only for
// messages not consumed. The columns schedule() reads, by name:
constexpr sql::Text kFanOutColumns = R"sql(b.message_id, b.consumed, b.event_id, b.org_id, b.mode,
       b.type, ARRAY(SELECT s.id FROM subscribed s WHERE NOT b.consumed AND s.org_id = b.org_id
                     AND s.mode = b.mode AND b.type = ANY (s.events) ORDER BY s.id)
                 AS endpoint_ids)sql";
constexpr auto kPrefetchFanOutsSql = sql::concat(R"sql(
WITH batch AS MATERIALIZED (
  SELECT b.message_id, b.event_id, ev.org_id, ev.mode, ev.type,
         o.message_id IS NULL OR o.consumed_at IS NOT NULL AS consumed
  FROM unnest($1::text[], $2::text[]) AS b(message_id, event_id)
  LEFT JOIN outbox o ON o.message_id = b.message_id
  LEFT JOIN events ev ON ev.id = b.event_id),
subscribed AS MATERIALIZED (
  SELECT e.id, e.org_id, e.mode, e.events FROM webhook_endpoints e
  WHERE e.active AND e.deleted_at IS NULL
    AND EXISTS (SELECT 1 FROM batch b WHERE NOT b.consumed AND b.org_id = e.org_id
                AND b.mode = e.mode AND b.type = ANY (e.events))
  ORDER BY e.id FOR SHARE)
SELECT )sql",
                                                 kFanOutColumns, R"sql(
FROM batch b)sql");
constexpr pg::Statement kPrefetchFanOuts{"webhook_deliveries_prefetch_fan_outs",
                                         kPrefetchFanOutsSql.c_str()};

// Deferred to the end of the transaction (store::defer_row): a batch's deliveries are one statement.
constexpr pg::Statement kInsertMany{"webhook_deliveries_insert_many", R"sql(
INSERT INTO webhook_deliveries (id, org_id, mode, endpoint_id, event_id, event_type,
                                next_attempt_at)
SELECT id, org_id, mode, endpoint_id, event_id, event_type, now()
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
  AS n(id, org_id, mode, endpoint_id, event_id, event_type)
ON CONFLICT (event_id, endpoint_id) DO NOTHING)sql"};

// A finished delivery starts a fresh schedule; a pending one keeps its place but is due now.
// The generation bump tells an attempt in flight that a redelivery was asked for meanwhile.
constexpr pg::Statement kRedeliver{
    "webhook_deliveries_redeliver",
    "INSERT INTO webhook_deliveries (id, org_id, mode, endpoint_id, event_id, event_type, "
    "next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6, now()) "
    "ON CONFLICT (event_id, endpoint_id) DO UPDATE SET status = 'pending', "
    "next_attempt_at = now(), schedule_step = CASE WHEN webhook_deliveries.status = 'pending' "
    "THEN webhook_deliveries.schedule_step ELSE 0 END, "
    "generation = webhook_deliveries.generation + 1, updated_at = now()"};

// SKIP LOCKED lets processes claim side by side; the lease (not the row lock) then keeps a
// delivery to one sender until it records an outcome or the lease expires. The columns claim()
// reads, by name:
constexpr sql::Text kClaimedColumns =
    "d.id, d.endpoint_id, d.event_id, d.event_type, d.mode, e.url, e.secret_ciphertext, "
    "ev.payload, d.generation, d.schedule_step";
constexpr auto kClaimSql = sql::concat(
    "UPDATE webhook_deliveries d SET locked_by = $1, "
    "locked_until = now() + $2::bigint * interval '1 millisecond' "
    "FROM webhook_endpoints e, events ev "
    "WHERE d.id IN (SELECT c.id FROM webhook_deliveries c "
    "JOIN webhook_endpoints ce ON ce.id = c.endpoint_id "
    "WHERE c.status = 'pending' AND c.next_attempt_at <= now() "
    "AND (c.locked_until IS NULL OR c.locked_until < now()) "
    "AND ce.active AND ce.deleted_at IS NULL "
    "ORDER BY c.next_attempt_at LIMIT $3 FOR UPDATE OF c SKIP LOCKED) "
    "AND e.id = d.endpoint_id AND ev.id = d.event_id "
    "RETURNING ",
    kClaimedColumns);
constexpr pg::Statement kClaim{"webhook_deliveries_claim", kClaimSql.c_str()};

constexpr pg::Statement kNextDue{
    "webhook_deliveries_next_due",
    "SELECT GREATEST(0, ceil(EXTRACT(EPOCH FROM (next_attempt_at - now())) * 1000))::bigint "
    "FROM webhook_deliveries WHERE status = 'pending' "
    "AND (locked_until IS NULL OR locked_until < now()) ORDER BY next_attempt_at LIMIT 1"};

// The re-check right before sending and the attempt's start, in one statement: still ours, still
// pending, endpoint still active (the UPDATE locks the delivery row, as FOR UPDATE did).
constexpr pg::Statement kStartAttempt{
    "webhook_deliveries_start_attempt",
    "WITH counted AS (UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, "
    "updated_at = now() FROM webhook_endpoints e WHERE d.id = $1 AND d.locked_by = $2 "
    "AND d.status = 'pending' AND e.id = d.endpoint_id AND e.active AND e.deleted_at IS NULL "
    "RETURNING d.attempt_count) "
    "INSERT INTO webhook_attempts (delivery_id, number, attempted_at, latency_ms, error) "
    "SELECT $1, attempt_count, now(), 0, $3 FROM counted RETURNING number"};

constexpr pg::Statement kCompleteAttempt{
    "webhook_deliveries_complete_attempt",
    "UPDATE webhook_attempts SET status_code = $3, latency_ms = $4, error = $5 "
    "WHERE delivery_id = $1 AND number = $2"};

// The usual outcome in one statement: the attempt completed and the delivery settled as computed
// from what the claim saw, provided nothing changed since (still leased to us, pending, same
// generation and schedule step). Otherwise nothing is settled and the locked path decides.
constexpr pg::Statement kCompleteAndSettleAsClaimed{
    "webhook_deliveries_complete_and_settle_as_claimed",
    "WITH completed AS (UPDATE webhook_attempts SET status_code = $3, latency_ms = $4, "
    "error = $5 WHERE delivery_id = $1 AND number = $2) "
    "UPDATE webhook_deliveries SET status = $8::text, schedule_step = $9, "
    "next_attempt_at = CASE WHEN $8::text = 'pending' "
    "THEN now() + $10::bigint * interval '1 millisecond' END, "
    "locked_by = NULL, locked_until = NULL, updated_at = now() "
    "WHERE id = $1 AND locked_by = $6 AND status = 'pending' AND generation = $7 "
    "AND schedule_step = $11"};

// The columns finish_attempt() reads, by name.
constexpr sql::Text kLeasedColumns = "status, schedule_step, generation";
constexpr auto kLockLeasedSql =
    sql::concat("SELECT ", kLeasedColumns,
                " FROM webhook_deliveries WHERE id = $1 AND locked_by = $2 FOR UPDATE");
constexpr pg::Statement kLockLeased{"webhook_deliveries_lock_leased", kLockLeasedSql.c_str()};

constexpr pg::Statement kSettle{
    "webhook_deliveries_settle",
    "UPDATE webhook_deliveries SET status = $2::text, schedule_step = $3, "
    "next_attempt_at = CASE WHEN $2::text = 'pending' "
    "THEN now() + $4::bigint * interval '1 millisecond' END, "
    "locked_by = NULL, locked_until = NULL, updated_at = now() WHERE id = $1"};

constexpr pg::Statement kRelease{
    "webhook_deliveries_release",
    "UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL "
    "WHERE id = $1 AND locked_by = $2"};

// The columns read_delivery() maps, by name.
constexpr auto kColumns =
    sql::concat("id, endpoint_id, event_id, event_type, status, attempt_count, ",
                sql::timestamp("next_attempt_at"), ", ", sql::timestamp("created_at"));
constexpr auto kListSql =
    sql::concat("SELECT ", kColumns, " FROM webhook_deliveries WHERE endpoint_id = $7 AND",
                keyset_conditions("webhook_deliveries"), keyset_order("webhook_deliveries"));
constexpr pg::Statement kList{"webhook_deliveries_list", kListSql.c_str(), pg::Plan::custom};

// The columns read_attempt() maps, by name.
constexpr auto kAttemptColumns = sql::concat(
    "delivery_id, number, ", sql::timestamp("attempted_at"), ", status_code, latency_ms, error");
constexpr auto kListAttemptsSql = sql::concat(
    "SELECT ", kAttemptColumns,
    " FROM (SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY number DESC) AS "
    "recency FROM webhook_attempts a WHERE delivery_id = ANY ($1::text[])) ranked WHERE recency "
    "<= $2 ORDER BY delivery_id, number");
constexpr pg::Statement kListAttempts{"webhook_deliveries_list_attempts", kListAttemptsSql.c_str()};

constexpr pg::Statement kCursorExists{
    "webhook_deliveries_cursor_exists",
    "SELECT 1 FROM webhook_deliveries WHERE id = $1 AND org_id = $2 AND mode = $3 "
    "AND endpoint_id = $4"};

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

// Inserts (or, for a redelivery, re-arms) the event's delivery to every subscribed endpoint.
int schedule_for_subscribers(pqxx::work& tx, const pqxx::row& event, std::string_view event_id,
                             const pg::Statement& statement) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kOwnEventColumns, name);
  };
  constexpr auto endpoint_id = sql::column(kSubscribedColumns, "id");
  const auto org_id = event[at("org_id")].as<std::string>();
  const auto mode = event[at("mode")].as<std::string>();
  const auto type = event[at("type")].as<std::string>();
  int scheduled = 0;
  for (const auto& endpoint : pg::exec(tx, kSubscribedEndpoints, org_id, mode, type)) {
    scheduled += static_cast<int>(pg::exec(tx, statement, new_id("whd_"), org_id, mode,
                                           endpoint[endpoint_id].as<std::string>(),
                                           std::string(event_id), type)
                                      .affected_rows());
  }
  return scheduled;
}

struct Settlement {
  Settled settled;
  std::string status;
  int schedule_step;
  std::int64_t delay_ms;
};

// What an attempt's outcome does to a delivery that was still leased to us, given its status,
// schedule step and generation at that moment.
Settlement settle(std::string_view status, int step, int generation,
                  const ClaimedDelivery& delivery, const AttemptOutcome& outcome,
                  std::span<const std::int64_t> schedule_ms, double unit_random) {
  if (status != "pending") return {Settled::unchanged, std::string(status), step, 0};
  if (generation != delivery.generation) return {Settled::redelivery_requested, "pending", 0, 0};
  if (outcome.succeeded) return {Settled::succeeded, "succeeded", step, 0};
  const auto delay_ms = model::next_retry_delay_ms(schedule_ms, step + 1, unit_random);
  if (!delay_ms) return {Settled::failed, "failed", step + 1, 0};
  return {Settled::retry_scheduled, "pending", step + 1, *delay_ms};
}

DeliveryRow read_delivery(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  DeliveryRow delivery;
  delivery.id = row[at("id")].as<std::string>();
  delivery.endpoint_id = row[at("endpoint_id")].as<std::string>();
  delivery.event_id = row[at("event_id")].as<std::string>();
  delivery.event_type = row[at("event_type")].as<std::string>();
  delivery.status = row[at("status")].as<std::string>();
  delivery.attempt_count = row[at("attempt_count")].as<int>();
  delivery.next_attempt_at = optional_text(row[at("next_attempt_at")]);
  delivery.created_at = row[at("created_at")].as<std::string>();
  return delivery;
}

constexpr auto attempt_column = [](std::string_view name) consteval {
  return sql::column(kAttemptColumns, name);
};

AttemptRow read_attempt(const pqxx::row& row) {
  constexpr auto at = attempt_column;
  const auto status_code = row[at("status_code")];
  return AttemptRow{
      row[at("number")].as<int>(), row[at("attempted_at")].as<std::string>(),
      status_code.is_null() ? std::nullopt : std::optional<int>(status_code.as<int>()),
      row[at("latency_ms")].as<std::int64_t>(), optional_text(row[at("error")])};
}

}  // namespace

std::string_view settled_name(Settled settled) {
  switch (settled) {
    case Settled::succeeded:
      return "succeeded";
    case Settled::retry_scheduled:
      return "retry_scheduled";
    case Settled::failed:
      return "failed";
    case Settled::redelivery_requested:
      return "redelivery_requested";
    case Settled::unchanged:
      return "unchanged";
    case Settled::lease_lost:
      return "lease_lost";
  }
  return "unchanged";
}

namespace {

pqxx::result read_fan_outs(pqxx::work& tx, const std::vector<FanOutMessage>& messages) {
  std::vector<std::string> message_ids;
  std::vector<std::string> event_ids;
  for (const auto& message : messages) {
    message_ids.push_back(message.message_id);
    event_ids.push_back(message.event_id);
  }
  return pg::exec(tx, kPrefetchFanOuts, pg::sql_array(message_ids), pg::sql_array(event_ids));
}

ClaimedDelivery read_claimed(const pqxx::row& row, std::string_view lease_token) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kClaimedColumns, name);
  };
  const pqxx::binarystring sealed(row[at("secret_ciphertext")]);
  return ClaimedDelivery{row[at("id")].as<std::string>(),
                         row[at("endpoint_id")].as<std::string>(),
                         row[at("event_id")].as<std::string>(),
                         row[at("event_type")].as<std::string>(),
                         *model::parse_mode(row[at("mode")].as<std::string>()),
                         row[at("url")].as<std::string>(),
                         sealed.str(),
                         row[at("payload")].as<std::string>(),
                         row[at("generation")].as<int>(),
                         row[at("schedule_step")].as<int>(),
                         std::string(lease_token)};
}

constexpr auto fan_out_column = [](std::string_view name) consteval {
  return sql::column(kFanOutColumns, name);
};

// Defers the deliveries of one row of kPrefetchFanOuts, unless its message was consumed.
FanOut schedule(pqxx::work& tx, const pqxx::row& row) {
  constexpr auto at = fan_out_column;
  if (row[at("consumed")].as<bool>()) return FanOut{.consumed = true};
  FanOut fanned_out;
  if (row[at("org_id")].is_null()) return fanned_out;  // an unknown event: nothing to deliver
  const auto event_id = row[at("event_id")].as<std::string>();
  const auto org_id = row[at("org_id")].as<std::string>();
  const auto mode = row[at("mode")].as<std::string>();
  const auto type = row[at("type")].as<std::string>();
  for (const auto& endpoint_id : parse_text_array(row[at("endpoint_ids")])) {
    store::defer_row(tx, kInsertMany, store::LockOrder::deliveries,
                  {new_id("whd_"), org_id, mode, endpoint_id, event_id, type});
    ++fanned_out.deliveries;
  }
  return fanned_out;
}

}  // namespace

void prefetch_fan_outs(pqxx::work& tx, const std::vector<FanOutMessage>& messages) {
  if (messages.empty()) return;
  constexpr auto message_id = fan_out_column("message_id");
  for (const auto& row : read_fan_outs(tx, messages)) {
    store::keep_locked_row(tx, "fan_out:" + row[message_id].as<std::string>(), row);
  }
}

FanOut fan_out(pqxx::work& tx, const FanOutMessage& message) {
  if (const auto kept = store::take_locked_row(tx, "fan_out:" + message.message_id)) {
    return schedule(tx, *kept);
  }
  return schedule(tx, read_fan_outs(tx, {message})[0]);
}

model::Result<std::vector<ClaimedDelivery>> claim(pg::Pool& pool, std::string_view lease_token,
                                                  std::int64_t lease_ms, int limit) {
  // One statement. Never rerun: a claim lost with its connection leaves its rows leased to a
  // token nobody holds until the lease runs out, as a crash would.
  return pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<std::vector<ClaimedDelivery>> {
        std::vector<ClaimedDelivery> claimed;
        for (const auto& row : pg::exec(tx, kClaim, std::string(lease_token), lease_ms,
                                        std::min(limit, kClaimBatchMax))) {
          claimed.push_back(read_claimed(row, lease_token));
        }
        return claimed;
      },
      pg::Pool::Rerun::never);
}

model::Result<std::optional<std::int64_t>> next_due_in_ms(pg::Pool& pool) {
  return pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<std::optional<std::int64_t>> {
        const auto rows = pg::exec(tx, kNextDue);
        if (rows.empty()) return std::optional<std::int64_t>();
        return std::optional<std::int64_t>(scalar<std::int64_t>(rows));
      });
}

model::Result<std::optional<int>> begin_attempt(pg::Pool& pool, const ClaimedDelivery& delivery) {
  // Never rerun: run twice it would start a second attempt. A connection lost during it leaves
  // the attempt in doubt, as a crash would (the lease runs out and the delivery is claimed again).
  return pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<std::optional<int>> {
        const auto rows = pg::exec(tx, kStartAttempt, delivery.delivery_id, delivery.lease_token,
                                   std::string(kAttemptInFlight));
        if (rows.empty()) {
          pg::exec(tx, kRelease, delivery.delivery_id, delivery.lease_token);
          return std::optional<int>();
        }
        return std::optional<int>(scalar<int>(rows));
      },
      pg::Pool::Rerun::never);
}

model::Result<Settled> finish_attempt(pg::Pool& pool, const ClaimedDelivery& delivery,
                                      const AttemptOutcome& outcome,
                                      std::span<const std::int64_t> schedule_ms,
                                      double unit_random) {
  // Run twice (a retry after a lost connection), the statement only completes the attempt again
  // with the same values and settles nothing, so the locked path reports the lease as gone.
  const auto expected = settle("pending", delivery.schedule_step, delivery.generation, delivery,
                               outcome, schedule_ms, unit_random);
  auto settled_as_claimed = pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<bool> {
    return pg::exec(tx, kCompleteAndSettleAsClaimed, delivery.delivery_id, outcome.number,
                    outcome.status_code, outcome.latency_ms, outcome.error, delivery.lease_token,
                    delivery.generation, expected.status, expected.schedule_step, expected.delay_ms,
                    delivery.schedule_step)
               .affected_rows() == 1;
  });
  if (!settled_as_claimed.ok()) return settled_as_claimed.error();
  if (*settled_as_claimed) return expected.settled;
  return pool.transact([&](pqxx::work& tx) -> model::Result<Settled> {
    // The attempt row is ours by its number even if the lease was lost: record what happened.
    pg::exec(tx, kCompleteAttempt, delivery.delivery_id, outcome.number, outcome.status_code,
             outcome.latency_ms, outcome.error);
    const auto leased = pg::exec(tx, kLockLeased, delivery.delivery_id, delivery.lease_token);
    if (leased.empty()) return Settled::lease_lost;
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kLeasedColumns, name);
    };
    const auto row = leased[0];
    const auto settlement =
        settle(row[at("status")].as<std::string>(), row[at("schedule_step")].as<int>(),
               row[at("generation")].as<int>(), delivery, outcome, schedule_ms, unit_random);
    pg::exec(tx, kSettle, delivery.delivery_id, settlement.status, settlement.schedule_step,
             settlement.delay_ms);
    return settlement.settled;
  });
}

model::Status release(pg::Pool& pool, const ClaimedDelivery& delivery) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kRelease, delivery.delivery_id, delivery.lease_token);
    return model::ok_status();
  });
}

model::Result<Page<DeliveryRow>> list_for_endpoint(pg::Pool& pool, std::string_view org_id,
                                                   model::Mode mode, std::string_view endpoint_id,
                                                   const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<DeliveryRow>> {
    std::vector<DeliveryRow> deliveries;
    for (const auto& row : pg::exec(tx, kList, std::string(org_id), mode_text(mode),
                                    query.limit + 1, query.starting_after, query.created_gte,
                                    query.created_lte, std::string(endpoint_id))) {
      deliveries.push_back(read_delivery(row));
    }
    auto page = make_page(std::move(deliveries), query.limit);
    std::vector<std::string> ids;
    for (const auto& delivery : page.items) ids.push_back(delivery.id);
    std::map<std::string, std::vector<AttemptRow>> attempts;
    constexpr auto delivery_id = attempt_column("delivery_id");
    for (const auto& row : pg::exec(tx, kListAttempts, pg::sql_array(ids), kAttemptsListedMax)) {
      attempts[row[delivery_id].as<std::string>()].push_back(read_attempt(row));
    }
    for (auto& delivery : page.items) delivery.attempts = std::move(attempts[delivery.id]);
    return page;
  });
}

model::Result<bool> cursor_exists(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                  std::string_view endpoint_id, std::string_view delivery_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return !pg::exec(tx, kCursorExists, std::string(delivery_id), std::string(org_id),
                     mode_text(mode), std::string(endpoint_id))
                .empty();
  });
}

model::Result<bool> redeliver(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                              std::string_view event_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    const auto events =
        pg::exec(tx, kFindOwnEvent, std::string(event_id), std::string(org_id), mode_text(mode));
    if (events.empty()) return false;
    schedule_for_subscribers(tx, events[0], event_id, kRedeliver);
    return true;
  });
}

}  // namespace payrail::infra::store::webhook_deliveries
