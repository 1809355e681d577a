#include "infra/repositories/collection_provider_events.h"

#include <array>

#include "infra/ids.h"
#include "infra/outbox/outbox.h"
#include "infra/repositories/sql.h"
#include "schemas/model/collection.h"
#include "topics/registry.h"

namespace payrail::infra::repositories::collection_provider_events {
namespace {

constexpr std::array<std::string_view, 5> kOutcomeNames{"applied", "unmatched_reference",
                                                        "late_payment", "duplicate_payment",
                                                        "failure_not_applicable"};

#define PAYRAIL_PROVIDER_EVENT_COLUMNS                                                     \
  "id, provider, provider_event_id, mode, type, method, reference, reference_normalized, " \
  "amount::text, currency, " PAYRAIL_TIMESTAMP(                                            \
      "occurred_at") ", outcome, collection_id, " PAYRAIL_TIMESTAMP("recorded_at")

constexpr pg::Statement kInsert{
    "provider_events_insert",
    "INSERT INTO collection_provider_events (id, provider, provider_event_id, mode, type, method, "
    "reference, reference_normalized, amount, currency, occurred_at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric, $10, $11::timestamptz) "
    "ON CONFLICT (provider, provider_event_id) DO NOTHING RETURNING id"};

constexpr pg::Statement kFindByProviderId{
    "provider_events_find_by_provider_id",
    "SELECT id FROM collection_provider_events WHERE provider = $1 AND provider_event_id = $2"};

constexpr pg::Statement kFind{"provider_events_find",
                              "SELECT " PAYRAIL_PROVIDER_EVENT_COLUMNS
                              " FROM collection_provider_events WHERE id = $1"};

constexpr pg::Statement kLock{"provider_events_lock",
                              "SELECT " PAYRAIL_PROVIDER_EVENT_COLUMNS
                              " FROM collection_provider_events WHERE id = $1 FOR UPDATE"};

constexpr pg::Statement kLockPending{
    "provider_events_lock_pending",
    "SELECT " PAYRAIL_PROVIDER_EVENT_COLUMNS
    " FROM collection_provider_events WHERE mode = $1 AND reference_normalized = $2 "
    "AND outcome IS NULL ORDER BY arrival FOR UPDATE"};

constexpr pg::Statement kSetOutcome{
    "provider_events_set_outcome",
    "UPDATE collection_provider_events SET outcome = $2, collection_id = $3, org_id = $4, "
    "processed_at = now() WHERE id = $1 AND outcome IS NULL"};

constexpr pg::Statement kExceptions{
    "provider_events_exceptions",
    "SELECT " PAYRAIL_PROVIDER_EVENT_COLUMNS
    " FROM collection_provider_events WHERE outcome IS DISTINCT FROM 'applied' "
    "AND ($1::text IS NULL OR mode = $1) ORDER BY arrival DESC LIMIT $2",
    pg::Plan::custom};

ProviderEventRow read_row(const pqxx::row& row) {
  ProviderEventRow result;
  result.id = row[0].as<std::string>();
  auto& event = result.event;
  event.provider = row[1].as<std::string>();
  event.provider_event_id = row[2].as<std::string>();
  event.mode = *model::parse_mode(row[3].as<std::string>());
  event.type = *infra::collections::parse_provider_event_type(row[4].as<std::string>());
  event.method = row[5].as<std::string>();
  event.reference = row[6].as<std::string>();
  result.reference_normalized = row[7].as<std::string>();
  event.amount = row[8].as<std::string>();
  event.currency = row[9].as<std::string>();
  event.occurred_at = row[10].as<std::string>();
  result.outcome = optional_text(row[11]);
  result.collection_id = optional_text(row[12]);
  result.recorded_at = row[13].as<std::string>();
  return result;
}

}  // namespace

std::string_view outcome_name(Outcome outcome) {
  return kOutcomeNames[static_cast<std::size_t>(outcome)];
}

Recorded record(pqxx::work& tx, const infra::collections::ProviderEvent& event) {
  const auto id = new_id("pev_");
  const auto mode = std::string(model::mode_name(event.mode));
  const auto inserted =
      pg::exec(tx, kInsert, id, event.provider, event.provider_event_id, mode,
               std::string(infra::collections::provider_event_type_name(event.type)), event.method,
               event.reference, model::normalize_reference(event.reference), event.amount,
               event.currency, event.occurred_at);
  if (inserted.empty()) {
    const auto existing = pg::exec(tx, kFindByProviderId, event.provider, event.provider_event_id);
    return {existing.empty() ? std::string() : existing[0][0].as<std::string>(), true};
  }
  // The provider does not know the organization: the envelope's org_id stays empty.
  outbox::enqueue(tx, topics::kCollectionProviderEvents, "", event.mode, id);
  return {id, false};
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

std::vector<ProviderEventRow> lock_pending(pqxx::work& tx, model::Mode mode,
                                           std::string_view reference_normalized) {
  std::vector<ProviderEventRow> pending;
  for (const auto& row : pg::exec(tx, kLockPending, std::string(model::mode_name(mode)),
                                  std::string(reference_normalized))) {
    pending.push_back(read_row(row));
  }
  return pending;
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

}  // namespace payrail::infra::repositories::collection_provider_events
