#include "infra/store/collections/collection_provider_events.h"

#include <array>

#include "infra/plumbing/ids.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/sql/sql.h"
#include "schemas/model/collections/collection.h"
#include "topics/registry.h"

namespace payrail::infra::store::collection_provider_events {
namespace {

constexpr std::array<std::string_view, 6> kOutcomeNames{
    "applied",           "unmatched_reference",    "late_payment",
    "duplicate_payment", "failure_not_applicable", "conflicting_duplicate"};

// The columns read_row() maps, by name.
constexpr auto kColumns = sql::concat(
    "id, provider, provider_event_id, mode, type, method, reference, reference_normalized, "
    "amount::text AS amount, currency, ",
    sql::timestamp("occurred_at"), ", outcome, collection_id, ", sql::timestamp("recorded_at"),
    ", scope_org_id, org_id");

// The collection the notification names (as the settlement worker matches it), locked FOR SHARE:
// a cancel or an expiry, which lock it FOR UPDATE, is then ordered with this recording.
constexpr pg::Statement kLockNamedCollection{
    "provider_events_lock_named_collection",
    "SELECT 1 FROM collections WHERE reference = $1 AND mode = $2 AND currency = $3 AND "
    "($4::text IS NULL OR org_id = $4) FOR SHARE"};

// recorded_at is the insert's own time, after the lock above: when Payrail received it.
constexpr pg::Statement kInsert{
    "provider_events_insert",
    "INSERT INTO collection_provider_events (id, provider, provider_event_id, mode, type, method, "
    "reference, reference_normalized, amount, currency, occurred_at, scope_org_id, recorded_at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric, $10, $11::timestamptz, $12, "
    "clock_timestamp()) "
    "ON CONFLICT (provider, mode, provider_event_id) WHERE duplicate_of IS NULL DO NOTHING "
    "RETURNING id"};

// Every version recorded under an event id (its first record, then any conflicting ones),
// locked so that two deliveries of one new version record it once, and whether each has this
// content. The columns record_repeated() reads, by name:
constexpr sql::Text kVersionColumns =
    "id, duplicate_of IS NULL AS first_record, type = $4 AND method = $5 AND reference = $6 AND "
    "amount = "
    "$7::numeric AND currency = $8 AS same_content";
constexpr auto kVersionsSql = sql::concat(
    "SELECT ", kVersionColumns,
    " FROM collection_provider_events WHERE provider = $1 AND mode = $2 AND provider_event_id = $3 "
    "ORDER BY arrival FOR UPDATE");
constexpr pg::Statement kVersions{"provider_events_versions", kVersionsSql.c_str()};

constexpr pg::Statement kInsertConflicting{
    "provider_events_insert_conflicting",
    "INSERT INTO collection_provider_events (id, provider, provider_event_id, mode, type, method, "
    "reference, reference_normalized, amount, currency, occurred_at, scope_org_id, recorded_at, "
    "duplicate_of, outcome, processed_at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric, $10, $11::timestamptz, $12, "
    "clock_timestamp(), $13, 'conflicting_duplicate', now())"};

constexpr auto kFindSql =
    sql::concat("SELECT ", kColumns, " FROM collection_provider_events WHERE id = $1");
constexpr pg::Statement kFind{"provider_events_find", kFindSql.c_str()};

constexpr auto kLockSql =
    sql::concat("SELECT ", kColumns, " FROM collection_provider_events WHERE id = $1 FOR UPDATE");
constexpr pg::Statement kLock{"provider_events_lock", kLockSql.c_str()};

// kColumns, then whether the notification came after its collection's deadline.
constexpr sql::Text kDeadlineColumns =
    "recorded_at >= (SELECT expires_at FROM collections WHERE id = $4) AS after_deadline";
constexpr auto kLockPendingSql = sql::concat(
    "SELECT ", kColumns, ", ", kDeadlineColumns,
    " FROM collection_provider_events WHERE mode = $1 AND reference_normalized = $2 AND "
    "(scope_org_id IS NULL OR scope_org_id = $3) AND outcome IS NULL ORDER BY arrival FOR UPDATE");
constexpr pg::Statement kLockPending{"provider_events_lock_pending", kLockPendingSql.c_str()};

constexpr auto kWaitingPaymentSql =
    sql::concat("SELECT e.amount::text FROM collections c JOIN collection_provider_events e ON ",
                payment_waiting("e", "c"), " WHERE c.id = $1 ORDER BY e.arrival LIMIT 1");
constexpr pg::Statement kWaitingPayment{"provider_events_waiting_payment",
                                        kWaitingPaymentSql.c_str()};

constexpr pg::Statement kSetOutcome{
    "provider_events_set_outcome",
    "UPDATE collection_provider_events SET outcome = $2, collection_id = $3, org_id = $4, "
    "processed_at = now() WHERE id = $1 AND outcome IS NULL"};

constexpr auto kExceptionsSql = sql::concat(
    "SELECT ", kColumns,
    " FROM collection_provider_events WHERE outcome IS DISTINCT FROM 'applied' AND ($1::text IS "
    "NULL OR mode = $1) ORDER BY arrival DESC LIMIT $2");
constexpr pg::Statement kExceptions{"provider_events_exceptions", kExceptionsSql.c_str(),
                                    pg::Plan::custom};

ProviderEventRow read_row(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  ProviderEventRow result;
  result.id = row[at("id")].as<std::string>();
  auto& event = result.event;
  event.provider = row[at("provider")].as<std::string>();
  event.provider_event_id = row[at("provider_event_id")].as<std::string>();
  event.mode = *model::parse_mode(row[at("mode")].as<std::string>());
  event.type = *model::parse_provider_event_type(row[at("type")].as<std::string>());
  event.method = row[at("method")].as<std::string>();
  event.reference = row[at("reference")].as<std::string>();
  result.reference_normalized = row[at("reference_normalized")].as<std::string>();
  event.amount = row[at("amount")].as<std::string>();
  event.currency = row[at("currency")].as<std::string>();
  event.occurred_at = row[at("occurred_at")].as<std::string>();
  result.outcome = optional_text(row[at("outcome")]);
  result.collection_id = optional_text(row[at("collection_id")]);
  result.recorded_at = row[at("recorded_at")].as<std::string>();
  event.org_id = optional_text(row[at("scope_org_id")]);
  result.org_id = optional_text(row[at("org_id")]);
  return result;
}

// A version of an event id recorded before: the delivery repeats it, or conflicts with the first.
Recorded record_repeated(pqxx::work& tx, const model::ProviderEvent& event, const std::string& mode,
                         const std::string& type) {
  const auto versions = pg::exec(tx, kVersions, event.provider, mode, event.provider_event_id, type,
                                 event.method, event.reference, event.amount, event.currency);
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kVersionColumns, name);
  };
  std::string first;
  for (const auto& version : versions) {
    if (version[at("first_record")].as<bool>()) first = version[at("id")].as<std::string>();
    if (version[at("same_content")].as<bool>()) {
      return {version[at("id")].as<std::string>(), true, std::nullopt};
    }
  }
  const auto id = new_id("pev_");
  pg::exec(tx, kInsertConflicting, id, event.provider, event.provider_event_id, mode, type,
           event.method, event.reference, model::normalize_reference(event.reference), event.amount,
           event.currency, event.occurred_at, event.org_id, first);
  return {id, false, first};
}

}  // namespace

std::string_view outcome_name(Outcome outcome) {
  return kOutcomeNames[static_cast<std::size_t>(outcome)];
}

Recorded record(pqxx::work& tx, const model::ProviderEvent& event) {
  const auto id = new_id("pev_");
  const auto mode = std::string(model::mode_name(event.mode));
  const auto type = std::string(model::provider_event_type_name(event.type));
  const auto reference = model::normalize_reference(event.reference);
  pg::exec(tx, kLockNamedCollection, reference, mode, event.currency, event.org_id);
  const auto inserted = pg::exec(tx, kInsert, id, event.provider, event.provider_event_id, mode,
                                 type, event.method, event.reference, reference, event.amount,
                                 event.currency, event.occurred_at, event.org_id);
  if (inserted.empty()) return record_repeated(tx, event, mode, type);
  // The provider does not know the organization: the envelope's org_id stays empty.
  outbox::enqueue(tx, topics::kCollectionProviderEvents, "", event.mode, id);
  return {id, false, std::nullopt};
}

std::optional<ProviderEventRow> find(pqxx::work& tx, std::string_view id) {
  const auto rows = pg::exec(tx, kFind, std::string(id));
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
}

std::optional<ProviderEventRow> lock(pqxx::work& tx, std::string_view id) {
  const auto rows = pg::exec(tx, kLock, std::string(id));
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
}

std::vector<PendingNotification> lock_pending(pqxx::work& tx,
                                              const collections::CollectionRow& collection) {
  constexpr auto after_deadline =
      sql::column_count(kColumns) + sql::column(kDeadlineColumns, "after_deadline");
  std::vector<PendingNotification> pending;
  for (const auto& row :
       pg::exec(tx, kLockPending, std::string(model::mode_name(collection.resource.mode)),
                collection.reference, collection.org_id, collection.resource.id)) {
    pending.push_back({read_row(row), row[after_deadline].as<bool>()});
  }
  return pending;
}

std::optional<std::string> waiting_payment(pqxx::work& tx, std::string_view collection_id) {
  const auto rows = pg::exec(tx, kWaitingPayment, std::string(collection_id));
  if (rows.empty()) return std::nullopt;
  return scalar<std::string>(rows);
}

void set_outcome(pqxx::work& tx, std::string_view id, Outcome outcome,
                 const std::optional<std::string>& collection_id,
                 const std::optional<std::string>& org_id) {
  pg::exec(tx, kSetOutcome, std::string(id), std::string(outcome_name(outcome)), collection_id,
           org_id);
}

model::Result<std::vector<ProviderEventRow>> exceptions(pg::Pool& pool,
                                                        std::optional<model::Mode> mode,
                                                        int limit) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<ProviderEventRow>> {
    std::vector<ProviderEventRow> rows;
    const auto mode_text =
        mode ? std::optional<std::string>(model::mode_name(*mode)) : std::nullopt;
    for (const auto& row : pg::exec(tx, kExceptions, mode_text, limit)) {
      rows.push_back(read_row(row));
    }
    return rows;
  });
}

}  // namespace payrail::infra::store::collection_provider_events
