#include "infra/store/payouts/payouts.h"

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/creates/claimed_create.h"
#include "infra/store/lifecycle/lifecycle.h"
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

// The columns the mapper reads, by name (Lifecycle::read).
constexpr auto kColumns = sql::concat(
    "id, org_id, mode, status, amount::text AS amount, currency, network, address, metadata, "
    "screening_status, screening_reasons, tx_hash, failure_reason, ",
    sql::timestamp("created_at"), ", amount_usd::text AS amount_usd, event_sequence");
constexpr auto at = [](std::string_view name) consteval {
  return sql::column(kColumns, name);
};

constexpr auto kLockSql =
    sql::concat("SELECT ", kColumns, " FROM payouts WHERE id = $1 FOR UPDATE");
constexpr pg::Statement kLock{"payouts_lock", kLockSql.c_str()};
constexpr auto kLockAllSql =
    sql::concat("SELECT ", kColumns,
                " FROM payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED");
constexpr pg::Statement kLockAll{"payouts_lock_all", kLockAllSql.c_str()};

// A transition's change of the payout row, deferred to the end of the transaction (defer_row): a
// worker batch's payouts change with one statement. The caller holds the row locked, so the
// change computed from the row it read is the one written; a row whose status is no longer
// `from_status` is returned, and fails the transaction (it cannot happen under the lock).
constexpr pg::Statement kApplyChanges{"payouts_apply_changes", R"sql(
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

constexpr RowLocks kRowLocks{"payouts", kLock, &kLockAll, at("id"), &kApplyChanges};

// kLockAll with each payout's broadcast attempt after its columns (execution's batch).
constexpr auto kLockAllWithBroadcastsSql =
    sql::concat("SELECT p.*, ", broadcasts::kKeptAttemptColumns, " FROM (", kLockAllSql,
                ") AS p LEFT JOIN payout_broadcasts b ON b.payout_id = p.id");
constexpr pg::Statement kLockAllWithBroadcasts{"payouts_lock_all_with_broadcasts",
                                               kLockAllWithBroadcastsSql.c_str()};
constexpr RowLocks kRowLocksWithBroadcasts{"payouts", kLock, &kLockAllWithBroadcasts, at("id"),
                                           &kApplyChanges};

constexpr auto kFindSql =
    sql::concat("SELECT ", kColumns, " FROM payouts WHERE id = $1 AND org_id = $2 AND mode = $3");
constexpr pg::Statement kFind{"payouts_find", kFindSql.c_str()};

constexpr auto kFindAnySql = sql::concat("SELECT ", kColumns, " FROM payouts WHERE id = $1");
constexpr pg::Statement kFindAny{"payouts_find_any", kFindAnySql.c_str()};

// The rows of these ids that exist, in no particular order (the answers of creates decided
// together).
constexpr auto kFindManySql =
    sql::concat("SELECT ", kColumns, " FROM payouts WHERE id = ANY($1::text[])");
constexpr pg::Statement kFindMany{"payouts_find_many", kFindManySql.c_str()};

constexpr auto kListSql =
    sql::concat("SELECT ", kColumns, " FROM payouts WHERE ($7::text IS NULL OR status = $7) AND",
                keyset_conditions("payouts"), keyset_order("payouts"));
constexpr pg::Statement kList{"payouts_list", kListSql.c_str(), pg::Plan::custom};

// The claim, the limit overrides and the insert of a group of creates in one statement (a create
// written alone is a group of one).
constexpr auto kCreateSql = claimed_create::claimed_creates(
    "$7::numeric[], $8::text[], $9::text[], $10::text[], $11::text[], $12::numeric[]",
    "amount, currency, network, address, metadata, amount_usd",
    sql::concat("INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, "
                "address, metadata, amount_usd, event_sequence) SELECT id, org_id, mode, "
                "'pending', amount, currency, network, address, metadata, amount_usd, 1 FROM "
                "request WHERE id IN (SELECT resource_id FROM claimed) ORDER BY position "
                "RETURNING ",
                kColumns));
constexpr pg::Statement kCreate{"payouts_create", kCreateSql.c_str()};

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

}  // namespace

const RowLocks& Lifecycle::row_locks() {
  return kRowLocks;
}

PayoutRow Lifecycle::read(const pqxx::row& row) {
  auto payout = lifecycle::read_common<Lifecycle, kColumns>(row);
  auto& resource = payout.resource;
  resource.network = row[at("network")].as<std::string>();
  resource.address = row[at("address")].as<std::string>();
  resource.screening_status = row[at("screening_status")].as<std::string>();
  resource.screening_reasons = parse_text_array(row[at("screening_reasons")]);
  resource.tx_hash = optional_text(row[at("tx_hash")]);
  payout.amount_usd = row[at("amount_usd")].as<std::string>();
  return payout;
}

// The resource's own columns as the transition leaves them (lifecycle::changed sets the rest),
// as kApplyChanges writes them.
void Lifecycle::apply_details(PayoutRow& after, const Details& details) {
  if (const auto& screening = details.screening) {
    after.resource.screening_status = screening->blocked ? "blocked" : "clear";
    after.resource.screening_reasons = screening->reasons;
  }
  if (details.tx_hash) after.resource.tx_hash = details.tx_hash;
}

DeferredRow Lifecycle::change(const PayoutRow& current, const PayoutRow& after,
                              const Details& details) {
  const auto& screening = details.screening;
  return {after.resource.id,
          after.resource.status,
          std::to_string(after.event_sequence - current.event_sequence),
          screening ? std::optional<std::string>(after.resource.screening_status) : std::nullopt,
          screening ? std::optional<std::string>(pg::sql_array(screening->reasons)) : std::nullopt,
          screening ? std::optional<std::string>(screening->list_version) : std::nullopt,
          details.tx_hash,
          details.failure_reason,
          details.approved_by,
          current.resource.status};
}

// Everything a step does besides the status: its event, its money and the spend it gives back.
// The organization's hot rows (its balance, then its spend counters) come last, so their locks
// are held for the fewest round trips before the commit.
bool Lifecycle::apply_effects(pqxx::work& tx, const PayoutRow& after, const Transition& step,
                              const Details&) {
  if (step.effects.event) {
    const std::string type(*step.effects.event);
    events::append(tx,
                   {after.org_id, after.resource.mode, type, std::string(kType), after.resource.id,
                    after.event_sequence},
                   [&](const std::string& event_id, const std::string& occurred_at) {
                     return model::payout_event_json(after.resource, type, event_id, occurred_at,
                                                     after.event_sequence);
                   });
  }
  if (const auto movement = ledger::movement_of(step.effects.money, ledger::Movement::settle)) {
    const auto applied =
        ledger::apply(tx, after.org_id, after.resource.mode, after.resource.currency, *movement,
                      after.resource.id, after.resource.amount);
    if (applied == ledger::Applied::insufficient_balance) return false;
  }
  if (step.effects.returns_spend) {
    spend::give_back(
        tx, {after.org_id, after.resource.mode, after.amount_usd, after.resource.created_at});
  }
  return true;
}

model::Error Lifecycle::cancel_refused(const PayoutRow& row) {
  return model::Error::make(model::ErrorCode::payout_not_cancelable,
                            "A payout that is " + row.resource.status + " cannot be cancelled.");
}

void Lifecycle::approved(pqxx::work& tx, const PayoutRow& row) {
  outbox::enqueue(tx, topics::kPayoutsApproved, row.org_id, row.resource.mode, row.resource.id);
}

std::optional<PayoutRow> lock(pqxx::work& tx, std::string_view payout_id) {
  return lifecycle::lock<Lifecycle>(tx, payout_id);
}

void lock_all(pqxx::work& tx, const std::vector<std::string>& payout_ids) {
  lifecycle::lock_all<Lifecycle>(tx, payout_ids);
}

void lock_all_with_broadcasts(pqxx::work& tx, const std::vector<std::string>& payout_ids) {
  store::lock_all(tx, kRowLocksWithBroadcasts, payout_ids, [&](const pqxx::row& row) {
    broadcasts::keep_attempt(tx, row[at("id")].as<std::string>(), row, sql::column_count(kColumns));
  });
}

std::optional<PayoutRow> transition(pqxx::work& tx, const PayoutRow& current,
                                    std::initializer_list<PayoutTrigger> triggers,
                                    const TransitionDetails& details) {
  return lifecycle::transition<Lifecycle>(tx, current, triggers, details);
}

std::optional<PayoutRow> transition(pqxx::work& tx, const PayoutRow& current, PayoutTrigger trigger,
                                    const TransitionDetails& details) {
  return lifecycle::transition<Lifecycle>(tx, current, trigger, details);
}

GroupedWrites::Ahead create_ahead(const NewPayout& request) {
  return claimed_create::request(kCreate, request.scope, request.endpoint, request.request_hash,
                                 request.id, request.amount, request.currency, request.network,
                                 request.address, request.metadata_json, request.amount_usd);
}

model::Result<CreateOutcome> create(pqxx::work& tx, const NewPayout& request) {
  const auto& scope = request.scope;
  auto claimed = claimed_create::run(tx, create_ahead(request), scope, sql::column_count(kColumns));
  if (!claimed.ok()) return claimed.error();
  if (claimed->existing) return CreateOutcome{std::nullopt, std::move(claimed->existing)};
  const auto& limits = claimed->limits;
  if (auto within = spend::check_per_payout(request.amount_usd, limits); !within.ok()) {
    return within.error();
  }
  auto created = Lifecycle::read(*claimed->created);
  outbox::enqueue(tx, topics::kPayoutsRequested, scope.org_id, scope.mode, request.id);
  if (!lifecycle::created<Lifecycle>(tx, created)) {
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

model::Result<PayoutRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                std::string_view payout_id) {
  return lifecycle::cancel<Lifecycle>(pool, org_id, mode, payout_id);
}

model::Result<PayoutRow> approve(pg::Pool& pool, std::string_view org_id,
                                 std::string_view payout_id, std::string_view member_subject) {
  return lifecycle::decide<Lifecycle>(pool, org_id, payout_id, member_subject,
                                      lifecycle::Decision::approve, organizations::hold_standing);
}

model::Result<PayoutRow> reject(pg::Pool& pool, std::string_view org_id, std::string_view payout_id,
                                std::string_view member_subject) {
  return lifecycle::decide<Lifecycle>(pool, org_id, payout_id, member_subject,
                                      lifecycle::Decision::reject, organizations::hold_standing);
}

std::optional<PayoutRow> find(pqxx::transaction_base& tx, std::string_view org_id, model::Mode mode,
                              std::string_view payout_id) {
  const auto rows =
      pg::exec(tx, kFind, std::string(payout_id), std::string(org_id), mode_text(mode));
  if (rows.empty()) return std::nullopt;
  return Lifecycle::read(rows[0]);
}

model::Result<std::optional<PayoutRow>> find(pg::Pool& pool, std::string_view org_id,
                                             model::Mode mode, std::string_view payout_id) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::optional<PayoutRow>> {
    return find(tx, org_id, mode, payout_id);
  });
}

std::vector<PayoutRow> find_many(pqxx::transaction_base& tx, const std::vector<std::string>& ids) {
  std::vector<PayoutRow> rows;
  for (const auto& row : pg::exec(tx, kFindMany, pg::sql_array(ids))) {
    rows.push_back(Lifecycle::read(row));
  }
  return rows;
}

model::Result<std::optional<PayoutRow>> find_any(pg::Pool& pool, std::string_view payout_id) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::optional<PayoutRow>> {
    const auto rows = pg::exec(tx, kFindAny, std::string(payout_id));
    if (rows.empty()) return std::optional<PayoutRow>();
    return std::optional<PayoutRow>(Lifecycle::read(rows[0]));
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
      rows.push_back(Lifecycle::read(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

}  // namespace payrail::infra::store::payouts
