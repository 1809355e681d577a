#include "infra/store/collections/collections.h"

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/collections/collection_provider_events.h"
#include "infra/store/creates/claimed_create.h"
#include "infra/store/lifecycle/lifecycle.h"
#include "infra/store/money/ledger.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/sql/sql.h"
#include "infra/store/webhooks/events.h"
#include "schemas/model/common/invariant.h"
#include "schemas/model/money/money.h"
#include "topics/registry.h"

namespace payrail::infra::store::collections {
namespace {

using model::CollectionTrigger;

constexpr int kUnappliedShownMax = 20;

// The columns the mapper reads, by name (Lifecycle::read).
constexpr auto kColumns = sql::concat(
    "id, org_id, mode, status, amount::text AS amount, currency, method, reference, "
    "payment_instructions, customer_reference, metadata, received_amount::text AS "
    "received_amount, settled_asset, settled_amount::text AS settled_amount, "
    "settlement_rate::text AS settlement_rate, failure_reason, ",
    sql::timestamp("expires_at"), ", ", sql::timestamp("created_at"), ", event_sequence");
constexpr auto at = [](std::string_view name) consteval {
  return sql::column(kColumns, name);
};

constexpr auto kLockSql =
    sql::concat("SELECT ", kColumns, " FROM collections WHERE id = $1 FOR UPDATE");
constexpr pg::Statement kLock{"collections_lock", kLockSql.c_str()};

constexpr auto kLockByReferenceSql = sql::concat(
    "SELECT ", kColumns,
    " FROM collections WHERE reference = $1 AND mode = $2 AND currency = $3 AND ($4::text IS "
    "NULL OR org_id = $4) FOR UPDATE");
constexpr pg::Statement kLockByReference{"collections_lock_by_reference",
                                         kLockByReferenceSql.c_str()};

// A transition's change of the row, deferred to the end of the transaction (as payouts').
constexpr pg::Statement kApplyChanges{"collections_apply_changes", R"sql(
WITH change AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[], $9::text[])
    AS c(id, status, events, received_amount, failure_reason, settled_amount, settlement_rate,
         settlement_rate_as_of, from_status)),
changed AS (
  UPDATE collections o SET status = c.status, event_sequence = o.event_sequence + c.events,
    received_amount = coalesce(c.received_amount::numeric, o.received_amount),
    received_at = CASE WHEN c.received_amount IS NULL THEN o.received_at ELSE now() END,
    failure_reason = coalesce(c.failure_reason, o.failure_reason),
    settled_asset = CASE WHEN c.settled_amount IS NULL THEN o.settled_asset ELSE 'USDC' END,
    settled_amount = coalesce(c.settled_amount::numeric, o.settled_amount),
    settled_at = CASE WHEN c.settled_amount IS NULL THEN o.settled_at ELSE now() END,
    settlement_rate = coalesce(c.settlement_rate::numeric, o.settlement_rate),
    settlement_rate_as_of = coalesce(c.settlement_rate_as_of::timestamptz,
                                     o.settlement_rate_as_of),
    updated_at = now()
  FROM change c WHERE o.id = c.id AND o.status = c.from_status RETURNING o.id)
SELECT id FROM change WHERE id NOT IN (SELECT id FROM changed))sql"};

// Collections are locked one by one (no worker batch locks them ahead).
constexpr RowLocks kRowLocks{"collections", kLock, nullptr, at("id"), &kApplyChanges};

constexpr auto kFindSql = sql::concat(
    "SELECT ", kColumns, " FROM collections WHERE id = $1 AND org_id = $2 AND mode = $3");
constexpr pg::Statement kFind{"collections_find", kFindSql.c_str()};

// The rows of these ids that exist, in no particular order (the answers of creates).
constexpr auto kFindManySql =
    sql::concat("SELECT ", kColumns, " FROM collections WHERE id = ANY($1::text[])");
constexpr pg::Statement kFindMany{"collections_find_many", kFindManySql.c_str()};

constexpr auto kListSql = sql::concat(
    "SELECT ", kColumns, " FROM collections WHERE ($7::text IS NULL OR status = $7) AND",
    keyset_conditions("collections"), keyset_order("collections"));
constexpr pg::Statement kList{"collections_list", kListSql.c_str(), pg::Plan::custom};

// The claim and the insert of a group of creates in one statement (a create written alone is a
// group of one). The reference is unique: a collision inserts nothing.
constexpr auto kCreateSql = claimed_create::claimed_creates(
    "$7::numeric[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], "
    "$14::text[], $15::int[]",
    "amount, currency, method, reference, provider, payment_instructions, customer_reference, "
    "metadata, expires_after_s",
    sql::concat("INSERT INTO collections (id, org_id, mode, status, amount, currency, method, "
                "reference, provider, payment_instructions, customer_reference, metadata, "
                "expires_at) SELECT id, org_id, mode, 'awaiting_payment', amount, currency, "
                "method, reference, provider, payment_instructions, customer_reference, metadata, "
                "now() + make_interval(secs => expires_after_s) FROM request WHERE id IN (SELECT "
                "resource_id FROM claimed) ORDER BY position ON CONFLICT (reference) DO NOTHING "
                "RETURNING ",
                kColumns));
constexpr pg::Statement kCreate{"collections_create", kCreateSql.c_str()};

constexpr auto kExpireNowSql = sql::concat(
    "UPDATE collections SET expires_at = least(expires_at, now()), updated_at = now() WHERE id = "
    "$1 AND org_id = $2 AND mode = $3 AND status = 'awaiting_payment' RETURNING ",
    kColumns);
constexpr pg::Statement kExpireNow{"collections_expire_now", kExpireNowSql.c_str()};

// Live collections by the database's clock; test-mode ones by the clock plus the test offset.
constexpr auto kDueSql = sql::concat(
    "SELECT ", kColumns,
    " FROM collections WHERE status = 'awaiting_payment' AND ((mode = 'live' AND expires_at <= "
    "now()) OR (mode = 'test' AND expires_at <= now() + make_interval(secs => $2))) AND NOT "
    "EXISTS (SELECT 1 FROM collection_provider_events e WHERE ",
    collection_provider_events::payment_waiting("e", "collections"),
    ") ORDER BY collections.expires_at, collections.id LIMIT $1 FOR UPDATE SKIP LOCKED");
constexpr pg::Statement kDue{"collections_due", kDueSql.c_str()};

constexpr auto kUnappliedColumns =
    sql::concat("amount::text AS amount, currency, ", sql::timestamp("recorded_at"), ", outcome");
constexpr auto kUnappliedSql = sql::concat(
    "SELECT ", kUnappliedColumns,
    " FROM collection_provider_events WHERE collection_id = $1 AND outcome IN ('late_payment', "
    "'duplicate_payment') ORDER BY arrival LIMIT $2");
constexpr pg::Statement kUnapplied{"collections_unapplied_payments", kUnappliedSql.c_str()};

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

model::Error refused_cancel(const std::string& why) {
  return model::Error::make(model::ErrorCode::collection_not_cancelable, why);
}

}  // namespace

const RowLocks& Lifecycle::row_locks() {
  return kRowLocks;
}

CollectionRow Lifecycle::read(const pqxx::row& row) {
  auto collection = lifecycle::read_common<Lifecycle, kColumns>(row);
  auto& resource = collection.resource;
  resource.method = row[at("method")].as<std::string>();
  collection.reference = row[at("reference")].as<std::string>();
  resource.payment_instructions_json = row[at("payment_instructions")].as<std::string>();
  resource.customer_reference = optional_text(row[at("customer_reference")]);
  resource.received_amount = optional_text(row[at("received_amount")]);
  resource.settled_asset = optional_text(row[at("settled_asset")]);
  resource.settled_amount = optional_text(row[at("settled_amount")]);
  resource.exchange_rate = optional_text(row[at("settlement_rate")]);
  resource.expires_at = row[at("expires_at")].as<std::string>();
  return collection;
}

// The resource's own columns as the transition leaves them (lifecycle::changed sets the rest),
// as kApplyChanges writes them.
void Lifecycle::apply_details(CollectionRow& after, const Details& details) {
  auto& resource = after.resource;
  if (details.received_amount) resource.received_amount = details.received_amount;
  if (details.settled_amount) {
    resource.settled_asset = "USDC";
    resource.settled_amount = details.settled_amount;
  }
  if (details.settlement_rate) resource.exchange_rate = details.settlement_rate;
}

DeferredRow Lifecycle::change(const CollectionRow& current, const CollectionRow& after,
                              const Details& details) {
  return {after.resource.id,
          after.resource.status,
          std::to_string(after.event_sequence - current.event_sequence),
          details.received_amount,
          details.failure_reason,
          details.settled_amount,
          details.settlement_rate,
          details.settlement_rate_as_of,
          current.resource.status};
}

// Everything a step does besides the status: the event, the settlement message and the credit,
// in the transaction that changed the status. The credit comes last: the organization's balance
// row stays locked from its update until the commit.
bool Lifecycle::apply_effects(pqxx::work& tx, const CollectionRow& after, const Transition& step,
                              const Details&) {
  const auto& resource = after.resource;
  if (step.effects.event) {
    const std::string type(*step.effects.event);
    events::append(
        tx,
        {after.org_id, resource.mode, type, std::string(kType), resource.id, after.event_sequence},
        [&](const std::string& event_id, const std::string& occurred_at) {
          return model::collection_event_json(resource, type, event_id, occurred_at,
                                              after.event_sequence);
        });
  }
  if (step.effects.starts_settlement) {
    outbox::enqueue(tx, topics::kCollectionsReceived, after.org_id, resource.mode, resource.id);
  }
  if (step.effects.credit && resource.settled_amount) {
    const auto credited = model::parse_decimal(*resource.settled_amount);
    if (credited && model::is_positive(*credited)) {
      const auto applied =
          ledger::apply(tx, after.org_id, resource.mode, "USDC", ledger::Movement::credit,
                        resource.id, *resource.settled_amount);
      model::invariant(applied == ledger::Applied::applied,
                       "a collection is credited once, and a credit is never short");
    }
  }
  return true;
}

model::Status Lifecycle::cancel_check(pqxx::work& tx, const CollectionRow& row) {
  if (row.status == model::CollectionStatus::awaiting_payment &&
      collection_provider_events::waiting_payment(tx, row.resource.id)) {
    return refused_cancel(
        "A payment for this collection arrived before the cancel; it is being applied.");
  }
  return model::ok_status();
}

model::Error Lifecycle::cancel_refused(const CollectionRow& row) {
  return refused_cancel("Only a collection awaiting payment can be cancelled; this one is " +
                        row.resource.status + ".");
}

std::optional<CollectionRow> lock(pqxx::work& tx, std::string_view collection_id) {
  return lifecycle::lock<Lifecycle>(tx, collection_id);
}

std::optional<CollectionRow> lock_by_reference(pqxx::work& tx, model::Mode mode,
                                               std::string_view normalized_reference,
                                               std::string_view currency,
                                               const std::optional<std::string>& org_id) {
  lifecycle::before_read<Lifecycle>(tx);
  const auto rows = pg::exec(tx, kLockByReference, std::string(normalized_reference),
                             mode_text(mode), std::string(currency), org_id);
  if (rows.empty()) return std::nullopt;
  return Lifecycle::read(rows[0]);
}

std::optional<CollectionRow> transition(pqxx::work& tx, const CollectionRow& current,
                                        CollectionTrigger trigger,
                                        const TransitionDetails& details) {
  return lifecycle::transition<Lifecycle>(tx, current, trigger, details);
}

std::string new_reference() {
  return model::reference_from_random(crypto::random_bytes(model::kReferenceRandomLength));
}

GroupedWrites::Ahead create_ahead(const NewCollection& request) {
  return claimed_create::request(
      kCreate, request.scope, request.endpoint, request.request_hash, request.id, request.amount,
      request.currency, std::string(request.method->type), request.reference, request.provider,
      request.instructions_json, request.customer_reference, request.metadata_json,
      std::to_string(request.expires_after_s));
}

model::Result<CreateOutcome> create(pqxx::work& tx, const NewCollection& request) {
  auto claimed =
      claimed_create::run(tx, create_ahead(request), request.scope, sql::column_count(kColumns));
  if (!claimed.ok()) return claimed.error();
  if (claimed->existing) return CreateOutcome{std::nullopt, std::move(claimed->existing)};
  if (claimed->created->at(at("id")).is_null()) {  // the reference collided: nothing inserted
    return model::Error::make(model::ErrorCode::internal_error, "An internal error occurred.");
  }
  auto created = Lifecycle::read(*claimed->created);
  model::invariant(lifecycle::created<Lifecycle>(tx, created),
                   "a collection's creation holds nothing");
  return CreateOutcome{std::move(created), std::nullopt};
}

model::Result<CollectionRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    std::string_view collection_id, std::string_view actor) {
  return lifecycle::cancel<Lifecycle>(pool, org_id, mode, collection_id,
                                      {.actor = std::string(actor)});
}

model::Result<CollectionRow> cancel(pqxx::work& tx, const CollectionRow& collection,
                                    std::string_view actor) {
  return lifecycle::cancel_locked<Lifecycle>(tx, collection, {.actor = std::string(actor)});
}

std::optional<CollectionRow> find(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                                  std::string_view collection_id) {
  lifecycle::before_read<Lifecycle>(tx);
  const auto rows =
      pg::exec(tx, kFind, std::string(collection_id), std::string(org_id), mode_text(mode));
  if (rows.empty()) return std::nullopt;
  return Lifecycle::read(rows[0]);
}

model::Result<std::optional<CollectionRow>> find(pg::Pool& pool, std::string_view org_id,
                                                 model::Mode mode, std::string_view collection_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<CollectionRow>> {
    return find(tx, org_id, mode, collection_id);
  });
}

std::vector<CollectionRow> find_many(pqxx::transaction_base& tx,
                                     const std::vector<std::string>& ids) {
  std::vector<CollectionRow> rows;
  for (const auto& row : pg::exec(tx, kFindMany, pg::sql_array(ids))) {
    rows.push_back(Lifecycle::read(row));
  }
  return rows;
}

model::Result<Page<CollectionRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        const std::optional<std::string>& status,
                                        const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<CollectionRow>> {
    std::vector<CollectionRow> rows;
    for (const auto& row :
         pg::exec(tx, kList, std::string(org_id), mode_text(mode), query.limit + 1,
                  query.starting_after, query.created_gte, query.created_lte, status)) {
      rows.push_back(Lifecycle::read(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

std::vector<model::UnappliedPayment> unapplied_payments(pqxx::work& tx,
                                                        std::string_view collection_id) {
  constexpr auto column = [](std::string_view name) consteval {
    return sql::column(kUnappliedColumns, name);
  };
  std::vector<model::UnappliedPayment> payments;
  for (const auto& row : pg::exec(tx, kUnapplied, std::string(collection_id), kUnappliedShownMax)) {
    payments.push_back(
        {row[column("amount")].as<std::string>(), row[column("currency")].as<std::string>(),
         row[column("recorded_at")].as<std::string>(), row[column("outcome")].as<std::string>()});
  }
  return payments;
}

model::Result<CollectionRow> expire_now(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        std::string_view collection_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<CollectionRow> {
    const auto collection = find(tx, org_id, mode, collection_id);
    if (!collection) return lifecycle::missing<Lifecycle>();
    const auto rows =
        pg::exec(tx, kExpireNow, std::string(collection_id), std::string(org_id), mode_text(mode));
    if (rows.empty()) {
      return model::Error::make(model::ErrorCode::collection_unexpected_state,
                                "Only a collection awaiting payment can expire; this one is " +
                                    collection->resource.status + ".");
    }
    return Lifecycle::read(rows[0]);
  });
}

model::Result<int> expire_due(pg::Pool& pool, int batch_max, int test_clock_offset_s) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<int> {
    int expired = 0;
    for (const auto& row : pg::exec(tx, kDue, batch_max, test_clock_offset_s)) {
      if (transition(tx, Lifecycle::read(row), CollectionTrigger::expire)) ++expired;
    }
    return expired;
  });
}

}  // namespace payrail::infra::store::collections
