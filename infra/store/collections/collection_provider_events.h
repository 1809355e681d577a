// Collection providers' notifications, stored before anything acts on them (they are external
// data): record() deduplicates by (provider, mode, provider_event_id) and puts a pointer on the
// collections.provider_events topic in the same transaction; an event id repeated with other
// content is recorded as an exception instead. The settlement worker applies them and records
// each one's outcome; anything not applied waits for an operator (`payrail
// collection-exceptions`).
//
// When a payment counts: a notification's recorded_at is when Payrail received it (taken at the
// insert, after the collection it names is locked), and a collection stops accepting payments
// when it is cancelled or at its expires_at. A payment recorded before that is the collection's
// whatever order the workers run in: a cancel is refused while it waits to be applied, the expiry
// worker leaves the collection for it, and the /fail helper fails it rather than invent another;
// one recorded at or after expires_at is late even if the collection has not been expired yet.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/collections/collections.h"
#include "infra/store/sql/text.h"
#include "schemas/model/collections/provider.h"

namespace payrail::infra::store::collection_provider_events {

// SQL: notification `e` is a payment of collection `c` that waits to be applied: it came in c's
// mode with c's reference and currency, from a shared account or c's organization's own, before
// c's deadline, and has no outcome yet. c is paid, whatever the settlement worker has done so far.
template <std::size_t E, std::size_t C>
constexpr auto payment_waiting(const char (&e)[E], const char (&c)[C]) {
  return sql::concat(e, ".outcome IS NULL AND ", e, ".type = 'payment_received' AND ", e,
                     ".mode = ", c, ".mode AND ", e, ".reference_normalized = ", c,
                     ".reference AND ", e, ".currency = ", c, ".currency AND (", e,
                     ".scope_org_id IS NULL OR ", e, ".scope_org_id = ", c, ".org_id) AND ", e,
                     ".recorded_at < ", c, ".expires_at");
}

// What became of a notification. Everything but `applied` is an exception for an operator.
enum class Outcome {
  applied,                 // moved its collection (received, or failed)
  unmatched_reference,     // no collection has its reference (in its mode and currency)
  late_payment,            // the collection had expired or was cancelled: not credited
  duplicate_payment,       // the collection was already paid: not credited again
  failure_not_applicable,  // a failure or return for a collection not in `received`
  conflicting_duplicate,   // the provider reused an event id with other content: never applied
};
std::string_view outcome_name(Outcome outcome);

struct Recorded {
  std::string id;          // pev_...: recorded now, or the record a redelivery repeats
  bool duplicate = false;  // the provider already sent exactly this: nothing was recorded again
  // The event id came before with other content: `id` is this version, recorded as a
  // conflicting_duplicate exception (never applied); this is the id's first record.
  std::optional<std::string> conflicts_with;
};

// Records the notification and its topic message, in the caller's transaction; a redelivery
// returns the record it repeats. The collection the notification names is locked (FOR SHARE)
// first, so a cancel or an expiry of it is ordered before or after this recording.
Recorded record(pqxx::work& tx, const model::ProviderEvent& event);

struct ProviderEventRow {
  std::string id;
  model::ProviderEvent event;  // event.org_id: the scope it was received in
  std::string reference_normalized;
  std::optional<std::string> outcome;
  std::optional<std::string> collection_id;
  std::optional<std::string> org_id;  // its collection's organization, once matched
  std::string recorded_at;
};

std::optional<ProviderEventRow> find(pqxx::work& tx, std::string_view id);
std::optional<ProviderEventRow> lock(pqxx::work& tx, std::string_view id);

struct PendingNotification {
  ProviderEventRow row;
  bool after_deadline = false;  // recorded at or after the collection's expires_at
};
// Every notification of this (locked) collection not yet applied, in arrival order, locked: its
// mode and reference, from a shared account or its organization's own (any currency: the caller
// sets another currency's aside).
std::vector<PendingNotification> lock_pending(pqxx::work& tx,
                                              const collections::CollectionRow& collection);
// The amount of the first payment of the collection that waits to be applied
// (payment_waiting), if any.
std::optional<std::string> waiting_payment(pqxx::work& tx, std::string_view collection_id);
void set_outcome(pqxx::work& tx, std::string_view id, Outcome outcome,
                 const std::optional<std::string>& collection_id,
                 const std::optional<std::string>& org_id);

// Notifications that were not applied (or not yet), newest first, for operators.
model::Result<std::vector<ProviderEventRow>> exceptions(pg::Pool& pool,
                                                        std::optional<model::Mode> mode, int limit);

}  // namespace payrail::infra::store::collection_provider_events
