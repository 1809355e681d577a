// Collection storage. Every state change goes through the one lifecycle mechanism
// (infra/store/lifecycle/lifecycle.h), which applies one row of the collection transition table
// (schemas/model/collections/collection_lifecycle.h) with all its effects in the caller's
// transaction: status, transitions log, USDC credit, event, and the settlement message.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/sql/listing.h"
#include "infra/store/sql/sql.h"
#include "schemas/model/collections/collection.h"
#include "schemas/model/collections/collection_lifecycle.h"
#include "schemas/model/fiat_payouts/corridors.h"

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

// How collections take part in the one lifecycle mechanism (infra/store/lifecycle/lifecycle.h).
struct Lifecycle {
  using Row = CollectionRow;
  using Status = model::CollectionStatus;
  using Trigger = model::CollectionTrigger;
  using Transition = model::CollectionTransition;
  using Details = TransitionDetails;
  static constexpr std::string_view kType = "collection";
  static constexpr std::string_view kNoun = "collection";
  static constexpr auto& find = model::find_collection_transition;
  static constexpr auto& status_name = model::collection_status_name;
  static constexpr auto& trigger_name = model::collection_trigger_name;
  static constexpr auto& parse_status = model::parse_collection_status;
  static const RowLocks& row_locks();
  static Row read(const pqxx::row& row);
  static void apply_details(Row& after, const Details& details);  // its own columns
  static DeferredRow change(const Row& current, const Row& after, const Details& details);
  static bool apply_effects(pqxx::work& tx, const Row& after, const Transition& step,
                            const Details& details);
  static std::optional<std::string> actor(const Details& details) { return details.actor; }
  // A payment recorded before the cancel and not applied yet wins: the payer paid first.
  static model::Status cancel_check(pqxx::work& tx, const Row& row);
  static model::Error cancel_refused(const Row& row);
};

// Reads and locks a collection (FOR UPDATE) for a worker; any organization.
[[nodiscard]] std::optional<CollectionRow> lock(pqxx::work& tx, std::string_view collection_id);
// The collection a payment's reference names (already normalized), in the provider account's
// mode and currency, and among `org_id`'s collections when the account was that organization's
// own (the test helpers' sandbox), locked; nullopt when none does.
[[nodiscard]] std::optional<CollectionRow> lock_by_reference(
    pqxx::work& tx, model::Mode mode, std::string_view normalized_reference,
    std::string_view currency, const std::optional<std::string>& org_id);

// Applies `trigger` (lifecycle::transition): the collection as it leaves it, or nullopt (and no
// change) when the table forbids it from the current status.
[[nodiscard]] std::optional<CollectionRow> transition(pqxx::work& tx, const CollectionRow& current,
                                                      model::CollectionTrigger trigger,
                                                      const TransitionDetails& details = {});

// A fresh payment reference (10 characters of 32: model::reference_from_random).
std::string new_reference();

struct NewCollection {
  std::string id;            // chosen by the caller ("col_...")
  idempotency::Scope scope;  // organization, mode, Idempotency-Key
  std::string endpoint;
  std::string request_hash;
  std::string amount;
  std::string currency;
  const model::PaymentMethod* method = nullptr;
  std::optional<std::string> customer_reference;
  std::optional<std::string> metadata_json;
  int expires_after_s = 72 * 3600;
  std::string reference;          // new_reference()
  std::string provider;           // the provider's name
  std::string instructions_json;  // the provider's instructions around `reference`
};

struct CreateOutcome {
  std::optional<CollectionRow> created;
  std::optional<idempotency::Record> existing;  // the key was already used
};

// In the caller's transaction (a group of creates, GroupedWrites): the claim of the
// Idempotency-Key, the collection `awaiting_payment` with its reference and instructions,
// expires_at = now() + expires_after_s (database time), and its creation logged. A reference
// another collection has already (one in 2^50 per collection) fails the create with
// internal_error, which the contract says to retry with the same key: nothing is written.
model::Result<CreateOutcome> create(pqxx::work& tx, const NewCollection& request);
// The claim and insert of create() (claimed_create.h), which a group of creates reads ahead.
GroupedWrites::Ahead create_ahead(const NewCollection& request);

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
// The rows of `ids` that exist, whatever their organization (the caller checks it), in no
// particular order: one statement for the answers of creates.
std::vector<CollectionRow> find_many(pqxx::transaction_base& tx,
                                     const std::vector<std::string>& ids);
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
