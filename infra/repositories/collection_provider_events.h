// Collection providers' notifications, stored before anything acts on them (they are external
// data): record() deduplicates by (provider, provider_event_id) and puts a pointer on the
// collections.provider_events topic in the same transaction. The settlement worker applies them
// and records each one's outcome; anything not applied waits for an operator
// (`payrail collection-exceptions`).
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/collections/provider.h"
#include "infra/pg/pool.h"

namespace payrail::infra::repositories::collection_provider_events {

// What became of a notification. Everything but `applied` is an exception for an operator.
enum class Outcome {
  applied,                 // moved its collection (received, or failed)
  unmatched_reference,     // no collection has its reference (in its mode and currency)
  late_payment,            // the collection had expired or was cancelled: not credited
  duplicate_payment,       // the collection was already paid: not credited again
  failure_not_applicable,  // a failure or return for a collection not in `received`
};
std::string_view outcome_name(Outcome outcome);

struct Recorded {
  std::string id;          // pev_...
  bool duplicate = false;  // the provider already sent this event: nothing was recorded again
};

// Records the notification and its topic message; a redelivery returns the first record.
Recorded record(pqxx::work& tx, const infra::collections::ProviderEvent& event);

struct ProviderEventRow {
  std::string id;
  infra::collections::ProviderEvent event;
  std::string reference_normalized;
  std::optional<std::string> outcome;
  std::optional<std::string> collection_id;
  std::string recorded_at;
};

std::optional<ProviderEventRow> find(pqxx::work& tx, std::string_view id);
std::optional<ProviderEventRow> lock(pqxx::work& tx, std::string_view id);
// Every notification for this reference in this mode not yet applied, in arrival order, locked.
std::vector<ProviderEventRow> lock_pending(pqxx::work& tx, model::Mode mode,
                                           std::string_view reference_normalized);
void set_outcome(pqxx::work& tx, std::string_view id, Outcome outcome,
                 const std::optional<std::string>& collection_id,
                 const std::optional<std::string>& org_id);

// Notifications that were not applied (or not yet), newest first, for operators.
model::Result<std::vector<ProviderEventRow>> exceptions(pg::Pool& pool,
                                                        std::optional<model::Mode> mode, int limit);

}  // namespace payrail::infra::repositories::collection_provider_events
