#include "infra/store/collections/collections.h"

#include <stdexcept>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/ids.h"
#include "infra/store/collections/collection_provider_events.h"
#include "infra/store/lifecycle/resource_transitions.h"
#include "infra/store/money/ledger.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/sql/sql.h"
#include "infra/store/webhooks/events.h"
#include "schemas/model/money/money.h"
#include "topics/registry.h"

namespace payrail::infra::store::collections {
namespace {

using model::CollectionTrigger;

constexpr std::string_view kResourceType = "collection";
constexpr int kReferenceAttemptsMax = 5;  // a collision among 32^10 references is already rare
constexpr int kUnappliedShownMax = 20;

#define PAYRAIL_COLLECTION_COLUMNS                                                              \
  "id, org_id, mode, status, amount::text, currency, method, reference, payment_instructions, " \
  "customer_reference, metadata, received_amount::text, settled_asset, settled_amount::text, "  \
  "settlement_rate::text, failure_reason, " PAYRAIL_TIMESTAMP(                                  \
      "expires_at") ", " PAYRAIL_TIMESTAMP("created_at") ", event_sequence"

constexpr pg::Statement kLock{"collections_lock", "SELECT " PAYRAIL_COLLECTION_COLUMNS
                                                  " FROM collections WHERE id = $1 FOR UPDATE"};

constexpr pg::Statement kLockByReference{
    "collections_lock_by_reference",
    "SELECT " PAYRAIL_COLLECTION_COLUMNS
    " FROM collections WHERE reference = $1 AND mode = $2 AND currency = $3 AND "
    "($4::text IS NULL OR org_id = $4) FOR UPDATE"};

constexpr pg::Statement kFind{"collections_find",
                              "SELECT " PAYRAIL_COLLECTION_COLUMNS
                              " FROM collections WHERE id = $1 AND org_id = $2 AND mode = $3"};

constexpr pg::Statement kList{
    "collections_list",
    "SELECT " PAYRAIL_COLLECTION_COLUMNS
    " FROM collections WHERE ($7::text IS NULL OR status = $7) AND" PAYRAIL_KEYSET_CONDITIONS(
        "collections") PAYRAIL_KEYSET_ORDER,
    pg::Plan::custom};

// The reference is unique: a collision inserts nothing and the caller draws another.
constexpr pg::Statement kInsert{
    "collections_insert",
    "INSERT INTO collections (id, org_id, mode, status, amount, currency, method, reference, "
    "provider, payment_instructions, customer_reference, metadata, expires_at) "
    "VALUES ($1, $2, $3, 'awaiting_payment', $4::numeric, $5, $6, $7, $8, $9, $10, $11, "
    "now() + make_interval(secs => $12)) ON CONFLICT (reference) DO NOTHING "
    "RETURNING " PAYRAIL_COLLECTION_COLUMNS};

constexpr pg::Statement kUpdate{
    "collections_update",
    "UPDATE collections SET status = $2, event_sequence = event_sequence + $3, "
    "received_amount = coalesce($4::text::numeric, received_amount), "
    "received_at = CASE WHEN $4::text IS NULL THEN received_at ELSE now() END, "
    "failure_reason = coalesce($5, failure_reason), "
    "settled_asset = CASE WHEN $6::text IS NULL THEN settled_asset ELSE 'USDC' END, "
    "settled_amount = coalesce($6::text::numeric, settled_amount), "
    "settled_at = CASE WHEN $6::text IS NULL THEN settled_at ELSE now() END, "
    "settlement_rate = coalesce($7::text::numeric, settlement_rate), "
    "settlement_rate_as_of = coalesce($8::text::timestamptz, settlement_rate_as_of), "
    "updated_at = now() WHERE id = $1 AND status = $9 RETURNING " PAYRAIL_COLLECTION_COLUMNS};

constexpr pg::Statement kExpireNow{
    "collections_expire_now",
    "UPDATE collections SET expires_at = least(expires_at, now()), updated_at = now() "
    "WHERE id = $1 AND org_id = $2 AND mode = $3 AND status = 'awaiting_payment' "
    "RETURNING " PAYRAIL_COLLECTION_COLUMNS};

// Live collections by the database's clock; test-mode ones by the clock plus the test offset.
constexpr pg::Statement kDue{"collections_due",
                             "SELECT " PAYRAIL_COLLECTION_COLUMNS
                             " FROM collections WHERE status = 'awaiting_payment' AND ("
                             "(mode = 'live' AND expires_at <= now()) OR "
                             "(mode = 'test' AND expires_at <= now() + make_interval(secs => $2))) "
                             "AND NOT EXISTS (SELECT 1 FROM collection_provider_events e WHERE "
                             PAYRAIL_PAYMENT_WAITING("e", "collections") ") "
                             "ORDER BY expires_at, id LIMIT $1 FOR UPDATE SKIP LOCKED"};

constexpr pg::Statement kUnapplied{
    "collections_unapplied_payments",
    "SELECT amount::text, currency, " PAYRAIL_TIMESTAMP("recorded_at") ", outcome "
    "FROM collection_provider_events WHERE collection_id = $1 "
    "AND outcome IN ('late_payment', 'duplicate_payment') ORDER BY arrival LIMIT $2"};

CollectionRow read_row(const pqxx::row& row) {
  CollectionRow collection;
  auto& resource = collection.resource;
  resource.id = row[0].as<std::string>();
  collection.org_id = row[1].as<std::string>();
  resource.mode = *model::parse_mode(row[2].as<std::string>());
  resource.status = row[3].as<std::string>();
  collection.status = *model::parse_collection_status(resource.status);
  resource.amount = row[4].as<std::string>();
  resource.currency = row[5].as<std::string>();
  resource.method = row[6].as<std::string>();
  collection.reference = row[7].as<std::string>();
  resource.payment_instructions_json = row[8].as<std::string>();
  resource.customer_reference = optional_text(row[9]);
  resource.metadata_json = optional_text(row[10]);
  resource.received_amount = optional_text(row[11]);
  resource.settled_asset = optional_text(row[12]);
  resource.settled_amount = optional_text(row[13]);
  resource.exchange_rate = optional_text(row[14]);
  resource.failure_reason = optional_text(row[15]);
  resource.expires_at = row[16].as<std::string>();
  resource.created_at = row[17].as<std::string>();
  collection.event_sequence = row[18].as<int>();
  return collection;
}

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

// Everything a transition does besides the status: the log, the event, the settlement message
// and the credit, in the transaction that changed the status. The credit comes last: the
// organization's balance row stays locked from its update until the commit.
void apply_effects(pqxx::work& tx, const CollectionRow& after,
                   const model::CollectionTransition& transition,
                   std::optional<std::string> actor) {
  const auto from =
      transition.from
          ? std::optional<std::string_view>(model::collection_status_name(*transition.from))
          : std::nullopt;
  resource_transitions::log(tx, {kResourceType, after.resource.id, from, after.resource.status,
                                 model::collection_trigger_name(transition.trigger),
                                 actor ? std::optional<std::string_view>(*actor) : std::nullopt});
  const auto& resource = after.resource;
  if (transition.effects.event) {
    const std::string type(*transition.effects.event);
    events::append(tx,
                   {after.org_id, resource.mode, type, std::string(kResourceType), resource.id,
                    after.event_sequence},
                   [&](const std::string& event_id, const std::string& occurred_at) {
                     return model::collection_event_json(resource, type, event_id, occurred_at,
                                                         after.event_sequence);
                   });
  }
  if (transition.effects.starts_settlement) {
    outbox::enqueue(tx, topics::kCollectionsReceived, after.org_id, resource.mode, resource.id);
  }
  if (transition.effects.credit && resource.settled_amount) {
    const auto credited = model::parse_decimal(*resource.settled_amount);
    if (credited && model::is_positive(*credited)) {
      const auto applied =
          ledger::apply(tx, after.org_id, resource.mode, "USDC", ledger::Movement::credit,
                        resource.id, *resource.settled_amount);
      if (applied != ledger::Applied::applied) {
        throw std::logic_error("collection credit applied twice: " + resource.id);
      }
    }
  }
}

model::Error missing_collection() {
  return model::Error::make(model::ErrorCode::resource_missing, "No such collection.");
}

}  // namespace

std::optional<CollectionRow> lock(pqxx::work& tx, std::string_view collection_id) {
  const auto rows = pg::exec(tx, kLock, std::string(collection_id));
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
}

std::optional<CollectionRow> lock_by_reference(pqxx::work& tx, model::Mode mode,
                                               std::string_view normalized_reference,
                                               std::string_view currency,
                                               const std::optional<std::string>& org_id) {
  const auto rows = pg::exec(tx, kLockByReference, std::string(normalized_reference),
                             mode_text(mode), std::string(currency), org_id);
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
}

std::optional<CollectionRow> transition(pqxx::work& tx, const CollectionRow& current,
                                        CollectionTrigger trigger,
                                        const TransitionDetails& details) {
  const auto found = model::find_collection_transition(current.status, trigger);
  if (!found) return std::nullopt;
  const auto rows =
      pg::exec(tx, kUpdate, current.resource.id,
               std::string(model::collection_status_name(found->to)), found->effects.event ? 1 : 0,
               details.received_amount, details.failure_reason, details.settled_amount,
               details.settlement_rate, details.settlement_rate_as_of, current.resource.status);
  if (rows.empty()) return std::nullopt;  // changed since it was locked: cannot happen under lock
  auto after = read_row(rows[0]);
  apply_effects(tx, after, *found, details.actor);
  return after;
}

model::Result<CreateOutcome> create(pg::Pool& pool, const NewCollection& request,
                                    const model::CollectionProvider& provider) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<CreateOutcome> {
    const auto id = new_id("col_");
    const auto& scope = request.scope;
    if (!idempotency::claim(tx, scope, request.endpoint, request.request_hash, id)) {
      return CreateOutcome{std::nullopt, idempotency::find(tx, scope)};
    }
    std::optional<CollectionRow> created;
    for (int attempt = 0; attempt < kReferenceAttemptsMax && !created; ++attempt) {
      const auto reference =
          model::reference_from_random(crypto::random_bytes(model::kReferenceRandomLength));
      const auto rows = pg::exec(
          tx, kInsert, id, scope.org_id, mode_text(scope.mode), request.amount, request.currency,
          std::string(request.method->type), reference, std::string(provider.name()),
          provider.instructions_json(*request.method, reference), request.customer_reference,
          request.metadata_json, request.expires_after_s);
      if (!rows.empty()) created = read_row(rows[0]);
    }
    if (!created) {
      return model::Error::make(model::ErrorCode::internal_error, "An internal error occurred.");
    }
    apply_effects(tx, *created,
                  *model::find_collection_transition(std::nullopt, CollectionTrigger::create),
                  std::nullopt);
    idempotency::complete(tx, scope, 201, model::collection_json(created->resource),
                          request.request_id);
    return CreateOutcome{std::move(created), std::nullopt};
  });
}

model::Result<CollectionRow> cancel(pqxx::work& tx, const CollectionRow& collection,
                                    std::string_view actor) {
  const auto refused = [&](const std::string& why) {
    return model::Error::make(model::ErrorCode::collection_not_cancelable, why);
  };
  if (collection.status == model::CollectionStatus::awaiting_payment &&
      collection_provider_events::waiting_payment(tx, collection.resource.id)) {
    return refused("A payment for this collection arrived before the cancel; it is being applied.");
  }
  auto after = transition(tx, collection, CollectionTrigger::cancel, {.actor = std::string(actor)});
  if (!after) {
    return refused("Only a collection awaiting payment can be cancelled; this one is " +
                   collection.resource.status + ".");
  }
  return std::move(*after);
}

model::Result<CollectionRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    std::string_view collection_id, std::string_view actor) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<CollectionRow> {
    const auto collection = lock(tx, collection_id);
    if (!collection || collection->org_id != org_id || collection->resource.mode != mode) {
      return missing_collection();
    }
    return cancel(tx, *collection, actor);
  });
}

std::optional<CollectionRow> find(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                                  std::string_view collection_id) {
  const auto rows =
      pg::exec(tx, kFind, std::string(collection_id), std::string(org_id), mode_text(mode));
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
}

model::Result<std::optional<CollectionRow>> find(pg::Pool& pool, std::string_view org_id,
                                                 model::Mode mode, std::string_view collection_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<CollectionRow>> {
    return find(tx, org_id, mode, collection_id);
  });
}

model::Result<Page<CollectionRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        const std::optional<std::string>& status,
                                        const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<CollectionRow>> {
    std::vector<CollectionRow> rows;
    for (const auto& row :
         pg::exec(tx, kList, std::string(org_id), mode_text(mode), query.limit + 1,
                  query.starting_after, query.created_gte, query.created_lte, status)) {
      rows.push_back(read_row(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

std::vector<model::UnappliedPayment> unapplied_payments(pqxx::work& tx,
                                                        std::string_view collection_id) {
  std::vector<model::UnappliedPayment> payments;
  for (const auto& row : pg::exec(tx, kUnapplied, std::string(collection_id), kUnappliedShownMax)) {
    payments.push_back({row[0].as<std::string>(), row[1].as<std::string>(),
                        row[2].as<std::string>(), row[3].as<std::string>()});
  }
  return payments;
}

model::Result<CollectionRow> expire_now(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        std::string_view collection_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<CollectionRow> {
    const auto collection = find(tx, org_id, mode, collection_id);
    if (!collection) return missing_collection();
    const auto rows =
        pg::exec(tx, kExpireNow, std::string(collection_id), std::string(org_id), mode_text(mode));
    if (rows.empty()) {
      return model::Error::make(model::ErrorCode::collection_unexpected_state,
                                "Only a collection awaiting payment can expire; this one is " +
                                    collection->resource.status + ".");
    }
    return read_row(rows[0]);
  });
}

model::Result<int> expire_due(pg::Pool& pool, int batch_max, int test_clock_offset_s) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<int> {
    int expired = 0;
    for (const auto& row : pg::exec(tx, kDue, batch_max, test_clock_offset_s)) {
      if (transition(tx, read_row(row), CollectionTrigger::expire)) ++expired;
    }
    return expired;
  });
}

}  // namespace payrail::infra::store::collections
