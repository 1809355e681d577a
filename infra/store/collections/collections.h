// Collection storage. Every state change goes through transition(), which applies one row of the
// collection transition table (schemas/model/collections/collection_lifecycle.h) with all its
// effects in the caller's transaction: status, transition log, USDC credit, event, and the
// settlement message.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/collections/collection.h"
#include "schemas/model/collections/collection_lifecycle.h"
#include "schemas/model/collections/provider.h"

namespace payrail::infra::store::collections {

struct CollectionRow {
  model::Collection resource;
  std::string org_id;
  model::CollectionStatus status = model::CollectionStatus::awaiting_payment;
  std::string reference;
  int event_sequence = 0;
};

struct TransitionDetails {
  std::optional<std::string> received_amount;  // payment_received: what arrived
  std::optional<std::string> failure_reason;   // payment_failed: payment_failed | payment_returned
  std::optional<std::string> settled_amount;   // settle: USDC credited, 6 decimals
  std::optional<std::string> settlement_rate;  // settle: currency -> USDC rate used
  std::optional<std::string> settlement_rate_as_of;
  std::optional<std::string> actor;  // who asked (the API key for a cancel); nullopt: the system
};

// Reads and locks a collection (FOR UPDATE) for a worker; any organization.
std::optional<CollectionRow> lock(pqxx::work& tx, std::string_view collection_id);
// The collection a payment's reference names (already normalized), in the provider account's
// mode and currency, and among `org_id`'s collections when the account was that organization's
// own (the test helpers' sandbox), locked; nullopt when none does.
std::optional<CollectionRow> lock_by_reference(pqxx::work& tx, model::Mode mode,
                                               std::string_view normalized_reference,
                                               std::string_view currency,
                                               const std::optional<std::string>& org_id);

// Applies `trigger`; nullopt (and no change) when the table forbids it from the current status.
std::optional<CollectionRow> transition(pqxx::work& tx, const CollectionRow& current,
                                        model::CollectionTrigger trigger,
                                        const TransitionDetails& details = {});

struct NewCollection {
  idempotency::Scope scope;  // organization, mode, Idempotency-Key
  std::string endpoint;
  std::string request_hash;
  std::string amount;
  std::string currency;
  const model::PaymentMethod* method = nullptr;
  std::optional<std::string> customer_reference;
  std::optional<std::string> metadata_json;
  int expires_after_s = 72 * 3600;
  std::string request_id;  // recorded with the answer, for replays
};

struct CreateOutcome {
  std::optional<CollectionRow> created;
  std::optional<idempotency::Record> existing;  // the key was already used
};

// One transaction: the idempotency record, the collection `awaiting_payment` with a fresh
// unique reference and the provider's instructions, expires_at = now() + expires_after_s
// (database time), the transition log, and the 201 answer recorded for replays.
model::Result<CreateOutcome> create(pg::Pool& pool, const NewCollection& request,
                                    const model::CollectionProvider& provider);

// resource_missing (not this organization's and mode's) or collection_not_cancelable: the table
// forbids it (only awaiting_payment), or a payment arrived before the cancel and waits to be
// applied (the payer paid first: it is received, not late).
model::Result<CollectionRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    std::string_view collection_id, std::string_view actor);
// The same for a collection the caller's transaction holds locked (an organization's closing).
model::Result<CollectionRow> cancel(pqxx::work& tx, const CollectionRow& collection,
                                    std::string_view actor);

std::optional<CollectionRow> find(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                                  std::string_view collection_id);
model::Result<std::optional<CollectionRow>> find(pg::Pool& pool, std::string_view org_id,
                                                 model::Mode mode, std::string_view collection_id);

model::Result<Page<CollectionRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        const std::optional<std::string>& status,
                                        const ListQuery& query);

// Payments with this collection's reference that were not credited, oldest first (at most 20).
std::vector<model::UnappliedPayment> unapplied_payments(pqxx::work& tx,
                                                        std::string_view collection_id);

// The test helper /expire: the collection's deadline becomes the database's now(), so the expiry
// worker expires it on its next pass. resource_missing, or collection_unexpected_state unless it
// is awaiting_payment.
model::Result<CollectionRow> expire_now(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        std::string_view collection_id);

// The expiry worker: expires up to `batch_max` unpaid collections whose expires_at has passed by
// database time, in one transaction (FOR UPDATE SKIP LOCKED, so several workers never collide).
// A collection with a payment recorded before its deadline and not applied yet is left to the
// settlement worker, which receives it.
// Test-mode collections compare against now() + test_clock_offset_s (a test-only setting;
// live collections always use now()). Returns how many expired.
model::Result<int> expire_due(pg::Pool& pool, int batch_max, int test_clock_offset_s);

}  // namespace payrail::infra::store::collections
