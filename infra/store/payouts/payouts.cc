#include "infra/store/payouts/payouts.h"

#include <stdexcept>

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/creates/claimed_create.h"
#include "infra/store/lifecycle/resource_transitions.h"
#include "infra/store/lifecycle/transition_steps.h"
#include "infra/store/money/ledger.h"
#include "infra/store/money/spend.h"
#include "infra/store/organizations/organizations.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/payouts/broadcasts.h"
#include "infra/store/sql/sql.h"
#include "infra/store/webhooks/events.h"
#include "topics/registry.h"

namespace payrail::infra::store::payouts {
namespace {

using model::PayoutTrigger;

#define PAYRAIL_PAYOUT_COLUMNS                                                        \
  "id, org_id, mode, status, amount::text, currency, network, address, metadata, "    \
  "screening_status, screening_reasons, tx_hash, failure_reason, " PAYRAIL_TIMESTAMP( \
      "created_at") ", amount_usd::text, event_sequence"

constexpr pg::Statement kLock{
    "payouts_lock", "SELECT " PAYRAIL_PAYOUT_COLUMNS " FROM payouts WHERE id = $1 FOR UPDATE"};
constexpr pg::Statement kLockAll{
    "payouts_lock_all",
    "SELECT " PAYRAIL_PAYOUT_COLUMNS
    " FROM payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED"};
// A transition's change of the payout row, deferred to the end of the transaction (pg::defer_row):
// a worker batch's payouts change with one statement. The caller holds the row locked, so the
// change transition() computed from the row it read is the one written; a row whose status is no
// longer `from_status` is returned, and fails the transaction (it cannot happen under the lock).
// lock() writes the pending changes before it reads a row again (RowLocks::deferred_changes).
constexpr pg::Statement kApplyTransitions{"payouts_apply_transitions", R"sql(
WITH change AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[], $9::text[], $10::text[])
    AS c(id, status, events, screening_status, screening_reasons, screening_list_version,
         tx_hash, failure_reason, approved_by, from_status)),
changed AS (
  UPDATE payouts p SET status = c.status, event_sequence = p.event_sequence + c.events,
    screening_status = coalesce(c.screening_status, p.screening_status),
    screening_reasons = coalesce(c.screening_reasons::text[], p.screening_reasons),
    screening_list_version = coalesce(c.screening_list_version, p.screening_list_version),
    screened_at = CASE WHEN c.screening_status IS NULL THEN p.screened_at ELSE now() END,
    tx_hash = coalesce(c.tx_hash, p.tx_hash),
    failure_reason = coalesce(c.failure_reason, p.failure_reason),
    approved_by = coalesce(c.approved_by, p.approved_by), updated_at = now()
  FROM change c WHERE p.id = c.id AND p.status = c.from_status RETURNING p.id)
SELECT id FROM change WHERE id NOT IN (SELECT id FROM changed))sql"};

constexpr RowLocks kRowLocks{"payouts", kLock, kLockAll, &kApplyTransitions};

// kLockAll with each payout's broadcast attempt after its columns (execution's batch).
constexpr pg::Statement kLockAllWithBroadcasts{
    "payouts_lock_all_with_broadcasts",
    "SELECT p.*, " PAYRAIL_KEPT_BROADCAST_COLUMNS " FROM (SELECT " PAYRAIL_PAYOUT_COLUMNS
    " FROM payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED) AS p "
    "LEFT JOIN payout_broadcasts b ON b.payout_id = p.id"};
constexpr RowLocks kRowLocksWithBroadcasts{"payouts", kLock, kLockAllWithBroadcasts,
                                           &kApplyTransitions};

constexpr pg::Statement kFind{"payouts_find",
                              "SELECT " PAYRAIL_PAYOUT_COLUMNS
                              " FROM payouts WHERE id = $1 AND org_id = $2 AND mode = $3"};

constexpr pg::Statement kFindAny{"payouts_find_any",
                                 "SELECT " PAYRAIL_PAYOUT_COLUMNS " FROM payouts WHERE id = $1"};

// The rows of these ids that exist, in no particular order (the answers of creates decided
// together).
constexpr pg::Statement kFindMany{"payouts_find_many", "SELECT " PAYRAIL_PAYOUT_COLUMNS
                                                       " FROM payouts WHERE id = ANY($1::text[])"};

constexpr pg::Statement kList{
    "payouts_list",
    "SELECT " PAYRAIL_PAYOUT_COLUMNS
    " FROM payouts WHERE ($7::text IS NULL OR status = $7) AND" PAYRAIL_KEYSET_CONDITIONS("payouts")
        PAYRAIL_KEYSET_ORDER,
    pg::Plan::custom};

// The claim, the limit overrides and the insert in one statement (claimed_create.h).
constexpr pg::Statement kCreate{
    "payouts_create",
    PAYRAIL_CLAIMED_CREATE(
        "INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, "
        "metadata, amount_usd, event_sequence) SELECT $6::text, $1::text, $2::text, 'pending', "
        "$7::numeric, $8::text, $9::text, $10::text, $11::text, $12::numeric, 1 FROM claimed "
        "RETURNING " PAYRAIL_PAYOUT_COLUMNS)};

// The same for a group of creates, read ahead by its first pass (claimed_create.h).
constexpr pg::Statement kCreateAhead{
    "payouts_create_ahead",
    PAYRAIL_CLAIMED_CREATES(
        "$7::numeric[], $8::text[], $9::text[], $10::text[], $11::text[], $12::numeric[]",
        "amount, currency, network, address, metadata, amount_usd",
        "INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, "
        "metadata, amount_usd, event_sequence) SELECT id, org_id, mode, 'pending', amount, "
        "currency, network, address, metadata, amount_usd, 1 FROM request WHERE id IN (SELECT "
        "resource_id FROM claimed) ORDER BY position RETURNING " PAYRAIL_PAYOUT_COLUMNS)};

// Deferred to the end of the transaction (pg::defer_row): a worker batch's transitions are one
// statement. Returns what the stage metrics count (resource_transitions::count_logged).
constexpr pg::Statement kLogTransitions{
    "payouts_log_transitions",
    "INSERT INTO payout_transitions (payout_id, from_status, to_status, trigger) "
    "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) "
    "RETURNING 'payout', to_status, from_status IS NULL, coalesce(extract(epoch FROM "
    "clock_timestamp() - (SELECT created_at FROM payouts WHERE id = payout_id)), 0)::float8"};

PayoutRow read_row(const pqxx::row& row) {
  PayoutRow payout;
  auto& resource = payout.resource;
  resource.id = row[0].as<std::string>();
  payout.org_id = row[1].as<std::string>();
  resource.mode = *model::parse_mode(row[2].as<std::string>());
  resource.status = row[3].as<std::string>();
  payout.status = *model::parse_payout_status(resource.status);
  resource.amount = row[4].as<std::string>();
  resource.currency = row[5].as<std::string>();
  resource.network = row[6].as<std::string>();
  resource.address = row[7].as<std::string>();
  resource.metadata_json = optional_text(row[8]);
  resource.screening_status = row[9].as<std::string>();
  resource.screening_reasons = parse_text_array(row[10]);
  resource.tx_hash = optional_text(row[11]);
  resource.failure_reason = optional_text(row[12]);
  resource.created_at = row[13].as<std::string>();
  payout.amount_usd = row[14].as<std::string>();
  payout.event_sequence = row[15].as<int>();
  return payout;
}

// Everything a transition does besides the status itself. Returns false when the hold found the
// balance short (only possible at creation; the caller rolls back). The organization's hot rows
// (its balance, then its spend counters) come last, so their locks are held for the fewest round
// trips before the commit.
bool apply_effects(pqxx::work& tx, const PayoutRow& after,
                   const model::PayoutTransition& transition) {
  const auto from =
      transition.from
          ? std::optional<std::string>(std::string(model::payout_status_name(*transition.from)))
          : std::nullopt;
  pg::defer_row(tx, kLogTransitions, pg::LockOrder::transition_logs,
                {after.resource.id, from, after.resource.status,
                 std::string(model::payout_trigger_name(transition.trigger))},
                resource_transitions::count_logged);
  if (transition.effects.event) {
    const std::string type(*transition.effects.event);
    events::append(tx,
                   {after.org_id, after.resource.mode, type, "payout", after.resource.id,
                    after.event_sequence},
                   [&](const std::string& event_id, const std::string& occurred_at) {
                     return model::payout_event_json(after.resource, type, event_id, occurred_at,
                                                     after.event_sequence);
                   });
  }
  if (const auto movement =
          ledger::movement_of(transition.effects.money, ledger::Movement::settle)) {
    const auto applied =
        ledger::apply(tx, after.org_id, after.resource.mode, after.resource.currency, *movement,
                      after.resource.id, after.resource.amount);
    if (applied == ledger::Applied::insufficient_balance) return false;
  }
  if (transition.effects.returns_spend) {
    spend::give_back(
        tx, {after.org_id, after.resource.mode, after.amount_usd, after.resource.created_at});
  }
  return true;
}

// The row as the transition leaves it, as kApplyTransitions writes it.
PayoutRow changed(const PayoutRow& current, model::PayoutStatus to, int events,
                  const TransitionDetails& details) {
  auto after = current;
  after.status = to;
  after.resource.status = std::string(model::payout_status_name(to));
  after.event_sequence += events;
  if (const auto& screening = details.screening) {
    after.resource.screening_status = screening->blocked ? "blocked" : "clear";
    after.resource.screening_reasons = screening->reasons;
  }
  if (details.tx_hash) after.resource.tx_hash = details.tx_hash;
  if (details.failure_reason) after.resource.failure_reason = details.failure_reason;
  return after;
}

void defer_change(pqxx::work& tx, const PayoutRow& current, const PayoutRow& after,
                  const TransitionDetails& details) {
  const auto& screening = details.screening;
  pg::defer_row(
      tx, kApplyTransitions, pg::LockOrder::resource_rows,
      {after.resource.id, after.resource.status,
       std::to_string(after.event_sequence - current.event_sequence),
       screening ? std::optional<std::string>(after.resource.screening_status) : std::nullopt,
       screening ? std::optional<std::string>(pg::sql_array(screening->reasons)) : std::nullopt,
       screening ? std::optional<std::string>(screening->list_version) : std::nullopt,
       details.tx_hash, details.failure_reason, details.approved_by, current.resource.status});
}

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

}  // namespace

std::optional<PayoutRow> lock(pqxx::work& tx, std::string_view payout_id) {
  const auto row = lock_one(tx, kRowLocks, payout_id);
  if (!row) return std::nullopt;
  return read_row(*row);
}

void lock_all(pqxx::work& tx, const std::vector<std::string>& payout_ids) {
  store::lock_all(tx, kRowLocks, payout_ids);
}

void lock_all_with_broadcasts(pqxx::work& tx, const std::vector<std::string>& payout_ids) {
  store::lock_all(tx, kRowLocksWithBroadcasts, payout_ids, [&](const pqxx::row& row) {
    broadcasts::keep_attempt(tx, row[0].as<std::string>(), row);
  });
}

std::optional<PayoutRow> transition(pqxx::work& tx, const PayoutRow& current,
                                    std::initializer_list<PayoutTrigger> triggers,
                                    const TransitionDetails& details) {
  const auto steps =
      model::find_transitions(current.status, triggers, model::find_payout_transition);
  if (!steps || steps->empty()) return std::nullopt;
  auto after = changed(current, steps->back().to, count_events(*steps), details);
  defer_change(tx, current, after, details);
  for_each_step(after, *steps, model::payout_status_name,
                [&](const PayoutRow& row, const auto& step) {
                  if (!apply_effects(tx, row, step))
                    throw std::logic_error("payout transition found the held balance short");
                });
  return after;
}

pg::GroupedWrites::Ahead create_ahead(const NewPayout& request) {
  return claimed_create::ahead(kCreateAhead, request.scope, request.endpoint, request.request_hash,
                               request.id, request.amount, request.currency, request.network,
                               request.address, request.metadata_json, request.amount_usd);
}

model::Result<CreateOutcome> create(pqxx::work& tx, const NewPayout& request) {
  const auto& id = request.id;
  const auto& scope = request.scope;
  auto claimed =
      claimed_create::run(tx, kCreate, kCreateAhead, scope, request.endpoint, request.request_hash,
                          id, request.amount_usd, request.amount, request.currency, request.network,
                          request.address, request.metadata_json, request.amount_usd);
  if (!claimed.ok()) return claimed.error();
  if (claimed->existing) return CreateOutcome{std::nullopt, std::move(claimed->existing)};
  const auto& limits = claimed->limits;
  auto created = read_row(*claimed->created);
  outbox::enqueue(tx, topics::kPayoutsRequested, scope.org_id, scope.mode, id);
  const auto transition = *model::find_payout_transition(std::nullopt, PayoutTrigger::create);
  if (!apply_effects(tx, created, transition)) {
    return model::Error::make(
        model::ErrorCode::insufficient_balance,
        "The available " + request.currency + " balance is below the payout amount.");
  }
  if (auto reserved = spend::reserve(tx, scope.org_id, scope.mode, request.amount_usd, limits);
      !reserved.ok()) {
    return reserved.error();
  }
  return CreateOutcome{std::move(created), std::nullopt};
}

namespace {

model::Error missing_payout() {
  return model::Error::make(model::ErrorCode::resource_missing, "No such payout.");
}

// Locks the payout and applies `trigger`; `forbidden` is the error when the table refuses.
model::Result<PayoutRow> apply_operation(pqxx::work& tx, const PayoutRow& payout,
                                         PayoutTrigger trigger, model::Error forbidden,
                                         const TransitionDetails& details = {}) {
  auto after = transition(tx, payout, trigger, details);
  if (!after) return forbidden;
  return std::move(*after);
}

}  // namespace

model::Result<PayoutRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                std::string_view payout_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<PayoutRow> {
    const auto payout = lock(tx, payout_id);
    if (!payout || payout->org_id != org_id || payout->resource.mode != mode) {
      return missing_payout();
    }
    return apply_operation(tx, *payout, PayoutTrigger::cancel,
                           model::Error::make(model::ErrorCode::payout_not_cancelable,
                                              "A payout that is " + payout->resource.status +
                                                  " cannot be cancelled."));
  });
}

model::Result<PayoutRow> approve(pg::Pool& pool, std::string_view org_id,
                                 std::string_view payout_id, std::string_view member_subject) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<PayoutRow> {
    if (auto standing = organizations::hold_standing(tx, org_id); !standing.ok()) {
      return standing.error();
    }
    const auto payout = lock(tx, payout_id);
    if (!payout || payout->org_id != org_id) return missing_payout();
    auto after = apply_operation(
        tx, *payout, PayoutTrigger::approve,
        model::Error::make(model::ErrorCode::payout_not_approvable,
                           "Only a payout pending approval can be approved; this one is " +
                               payout->resource.status + "."),
        {.approved_by = std::string(member_subject)});
    if (after.ok()) {
      outbox::enqueue(tx, topics::kPayoutsApproved, after->org_id, after->resource.mode,
                      after->resource.id);
    }
    return after;
  });
}

model::Result<PayoutRow> reject(pg::Pool& pool, std::string_view org_id, std::string_view payout_id,
                                std::string_view member_subject) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<PayoutRow> {
    if (auto standing = organizations::hold_standing(tx, org_id); !standing.ok()) {
      return standing.error();
    }
    const auto payout = lock(tx, payout_id);
    if (!payout || payout->org_id != org_id) return missing_payout();
    return apply_operation(
        tx, *payout, PayoutTrigger::reject,
        model::Error::make(model::ErrorCode::payout_not_approvable,
                           "Only a payout pending approval can be rejected; this one is " +
                               payout->resource.status + "."),
        {.approved_by = std::string(member_subject)});
  });
}

std::optional<PayoutRow> find(pqxx::transaction_base& tx, std::string_view org_id, model::Mode mode,
                              std::string_view payout_id) {
  const auto rows =
      pg::exec(tx, kFind, std::string(payout_id), std::string(org_id), mode_text(mode));
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
}

model::Result<std::optional<PayoutRow>> find(pg::Pool& pool, std::string_view org_id,
                                             model::Mode mode, std::string_view payout_id) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::optional<PayoutRow>> {
    return find(tx, org_id, mode, payout_id);
  });
}

std::vector<PayoutRow> find_many(pqxx::transaction_base& tx, const std::vector<std::string>& ids) {
  std::vector<PayoutRow> rows;
  for (const auto& row : pg::exec(tx, kFindMany, pg::sql_array(ids))) rows.push_back(read_row(row));
  return rows;
}

model::Result<std::optional<PayoutRow>> find_any(pg::Pool& pool, std::string_view payout_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<PayoutRow>> {
    const auto rows = pg::exec(tx, kFindAny, std::string(payout_id));
    if (rows.empty()) return std::optional<PayoutRow>();
    return std::optional<PayoutRow>(read_row(rows[0]));
  });
}

model::Result<Page<PayoutRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    const std::optional<std::string>& status,
                                    const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<PayoutRow>> {
    std::vector<PayoutRow> rows;
    for (const auto& row :
         pg::exec(tx, kList, std::string(org_id), mode_text(mode), query.limit + 1,
                  query.starting_after, query.created_gte, query.created_lte, status)) {
      rows.push_back(read_row(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

}  // namespace payrail::infra::store::payouts
