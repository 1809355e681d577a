#include "infra/store/fiat_payouts/fiat_payouts.h"

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/creates/claimed_create.h"
#include "infra/store/lifecycle/lifecycle.h"
#include "infra/store/money/ledger.h"
#include "infra/store/money/spend.h"
#include "infra/store/organizations/organizations.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/sql/sql.h"
#include "infra/store/webhooks/events.h"
#include "topics/registry.h"

namespace payrail::infra::store::fiat_payouts {
namespace {

using model::FiatPayoutTrigger;

// The columns the mapper reads, by name (Lifecycle::read).
constexpr auto kColumns = sql::concat(
    "id, org_id, mode, status, amount::text AS amount, currency, country, beneficiary_name, "
    "account_type, account_sealed, account_masked, usdc_amount::text AS usdc_amount, rate::text "
    "AS rate, ",
    sql::timestamp("rate_as_of"),
    ", amount_usd::text AS amount_usd, metadata, screening_status, screening_reasons, "
    "partner_reference, partner_outcome, ",
    sql::timestamp("estimated_settlement_at"), ", failure_reason, ", sql::timestamp("created_at"),
    ", event_sequence");
constexpr auto at = [](std::string_view name) consteval {
  return sql::column(kColumns, name);
};

constexpr auto kLockSql =
    sql::concat("SELECT ", kColumns, " FROM fiat_payouts WHERE id = $1 FOR UPDATE");
constexpr pg::Statement kLock{"fiat_payouts_lock", kLockSql.c_str()};
constexpr auto kLockAllSql =
    sql::concat("SELECT ", kColumns,
                " FROM fiat_payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED");
constexpr pg::Statement kLockAll{"fiat_payouts_lock_all", kLockAllSql.c_str()};

// A transition's change of the row, deferred to the end of the transaction (as payouts').
constexpr pg::Statement kApplyChanges{"fiat_payouts_apply_changes", R"sql(
WITH change AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[],
                       $7::text[], $8::text[], $9::text[])
    AS c(id, status, events, screening_status, screening_reasons, screening_list_version,
         failure_reason, approved_by, from_status)),
changed AS (
  UPDATE fiat_payouts p SET status = c.status, event_sequence = p.event_sequence + c.events,
    screening_status = coalesce(c.screening_status, p.screening_status),
    screening_reasons = coalesce(c.screening_reasons::text[], p.screening_reasons),
    screening_list_version = coalesce(c.screening_list_version, p.screening_list_version),
    screened_at = CASE WHEN c.screening_status IS NULL THEN p.screened_at ELSE now() END,
    failure_reason = coalesce(c.failure_reason, p.failure_reason),
    approved_by = coalesce(c.approved_by, p.approved_by), updated_at = now()
  FROM change c WHERE p.id = c.id AND p.status = c.from_status RETURNING p.id)
SELECT id FROM change WHERE id NOT IN (SELECT id FROM changed))sql"};

constexpr RowLocks kRowLocks{"fiat_payouts", kLock, &kLockAll, at("id"), &kApplyChanges};

constexpr auto kFindSql = sql::concat(
    "SELECT ", kColumns, " FROM fiat_payouts WHERE id = $1 AND org_id = $2 AND mode = $3");
constexpr pg::Statement kFind{"fiat_payouts_find", kFindSql.c_str()};

constexpr auto kFindAnySql = sql::concat("SELECT ", kColumns, " FROM fiat_payouts WHERE id = $1");
constexpr pg::Statement kFindAny{"fiat_payouts_find_any", kFindAnySql.c_str()};

// The rows of these ids that exist, in no particular order (the answers of creates decided
// together).
constexpr auto kFindManySql =
    sql::concat("SELECT ", kColumns, " FROM fiat_payouts WHERE id = ANY($1::text[])");
constexpr pg::Statement kFindMany{"fiat_payouts_find_many", kFindManySql.c_str()};

constexpr auto kListSql = sql::concat(
    "SELECT ", kColumns,
    " FROM fiat_payouts WHERE ($7::text IS NULL OR status = $7) AND ($8::text IS NULL OR "
    "country = $8) AND",
    keyset_conditions("fiat_payouts"), keyset_order("fiat_payouts"));
constexpr pg::Statement kList{"fiat_payouts_list", kListSql.c_str(), pg::Plan::custom};

// The claim, the limit overrides and the insert of a group of creates in one statement (a create
// written alone is a group of one).
constexpr auto kCreateSql = claimed_create::claimed_creates(
    "$7::numeric[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], "
    "$14::numeric[], $15::numeric[], $16::timestamptz[], $17::numeric[], $18::text[]",
    "amount, currency, country, beneficiary_name, account_type, account_sealed, account_masked, "
    "usdc_amount, rate, rate_as_of, amount_usd, metadata",
    sql::concat("INSERT INTO fiat_payouts (id, org_id, mode, status, amount, currency, country, "
                "beneficiary_name, account_type, account_sealed, account_masked, usdc_amount, "
                "rate, rate_as_of, amount_usd, metadata, event_sequence) SELECT id, org_id, mode, "
                "'pending', amount, currency, country, beneficiary_name, account_type, "
                "decode(account_sealed, 'hex'), account_masked, usdc_amount, rate, rate_as_of, "
                "amount_usd, metadata, 0 FROM request WHERE id IN (SELECT resource_id FROM "
                "claimed) ORDER BY position RETURNING ",
                kColumns));
constexpr pg::Statement kCreate{"fiat_payouts_create", kCreateSql.c_str()};

constexpr pg::Statement kRecordSend{
    "fiat_payouts_record_send",
    "UPDATE fiat_payouts SET partner_outcome = $2, partner_reference = $3, sent_at = now(), "
    "estimated_settlement_at = CASE WHEN $2 = 'accepted' THEN now() + $4 * interval '1 minute' "
    "END, updated_at = now() WHERE id = $1 AND partner_outcome IS NULL"};

constexpr auto kRemainingColumns = sql::concat(
    "id, greatest(0, ceil(extract(epoch FROM (sent_at + $2 * interval '1 millisecond' - "
    "clock_timestamp())) * 1000))::bigint AS remaining_ms");
constexpr auto kRemainingDelaySql =
    sql::concat("SELECT ", kRemainingColumns, " FROM fiat_payouts WHERE id = ANY($1::text[])");
constexpr pg::Statement kRemainingDelay{"fiat_payouts_remaining_delays",
                                        kRemainingDelaySql.c_str()};

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

}  // namespace

const RowLocks& Lifecycle::row_locks() {
  return kRowLocks;
}

FiatPayoutRow Lifecycle::read(const pqxx::row& row) {
  auto payout = lifecycle::read_common<Lifecycle, kColumns>(row);
  auto& resource = payout.resource;
  resource.country = row[at("country")].as<std::string>();
  resource.beneficiary_name = row[at("beneficiary_name")].as<std::string>();
  payout.account_type = row[at("account_type")].as<std::string>();
  payout.account_sealed = pqxx::binarystring(row[at("account_sealed")]).str();
  resource.account_masked_json = row[at("account_masked")].as<std::string>();
  resource.funding = {row[at("usdc_amount")].as<std::string>(), row[at("rate")].as<std::string>(),
                      row[at("rate_as_of")].as<std::string>()};
  payout.amount_usd = row[at("amount_usd")].as<std::string>();
  resource.screening_status = row[at("screening_status")].as<std::string>();
  resource.screening_reasons = parse_text_array(row[at("screening_reasons")]);
  const auto reference = optional_text(row[at("partner_reference")]);
  payout.partner_outcome = optional_text(row[at("partner_outcome")]);
  const auto estimated = optional_text(row[at("estimated_settlement_at")]);
  if (reference && estimated) resource.tracking = model::FiatTracking{*reference, *estimated};
  return payout;
}

// The resource's own columns as the transition leaves them (lifecycle::changed sets the rest),
// as kApplyChanges writes them.
void Lifecycle::apply_details(FiatPayoutRow& after, const Details& details) {
  if (const auto& screening = details.screening) {
    after.resource.screening_status = screening->blocked ? "blocked" : "clear";
    after.resource.screening_reasons = screening->reasons;
  }
}

DeferredRow Lifecycle::change(const FiatPayoutRow& current, const FiatPayoutRow& after,
                              const Details& details) {
  const auto& screening = details.screening;
  return {after.resource.id,
          after.resource.status,
          std::to_string(after.event_sequence - current.event_sequence),
          screening ? std::optional<std::string>(after.resource.screening_status) : std::nullopt,
          screening ? std::optional<std::string>(pg::sql_array(screening->reasons)) : std::nullopt,
          screening ? std::optional<std::string>(screening->list_version) : std::nullopt,
          details.failure_reason,
          details.actor,
          current.resource.status};
}

// Everything a step does besides the status: its event, the movement of its USDC funding and the
// spend it gives back. The organization's hot rows (its balance, then its spend counters) come
// last, so their locks are held for the fewest round trips before the commit.
bool Lifecycle::apply_effects(pqxx::work& tx, const FiatPayoutRow& after, const Transition& step,
                              const Details&) {
  const auto& resource = after.resource;
  if (step.effects.event) {
    const std::string type(*step.effects.event);
    events::append(
        tx,
        {after.org_id, resource.mode, type, std::string(kType), resource.id, after.event_sequence},
        [&](const std::string& event_id, const std::string& occurred_at) {
          return model::fiat_payout_event_json(resource, type, event_id, occurred_at,
                                               after.event_sequence);
        });
  }
  if (const auto movement =
          ledger::movement_of(step.effects.money, ledger::Movement::settle_fiat)) {
    const auto applied = ledger::apply(tx, after.org_id, resource.mode, kFundingAsset, *movement,
                                       resource.id, resource.funding.usdc_amount);
    if (applied == ledger::Applied::insufficient_balance) return false;
  }
  if (step.effects.returns_spend) {
    spend::give_back(tx, {after.org_id, resource.mode, after.amount_usd, resource.created_at});
  }
  return true;
}

model::Error Lifecycle::cancel_refused(const FiatPayoutRow& row) {
  return model::Error::make(
      model::ErrorCode::payout_not_cancelable,
      "A fiat payout that is " + row.resource.status + " cannot be cancelled.");
}

void Lifecycle::approved(pqxx::work& tx, const FiatPayoutRow& row) {
  outbox::enqueue(tx, topics::kFiatPayoutsApproved, row.org_id, row.resource.mode, row.resource.id);
}

std::optional<FiatPayoutRow> lock(pqxx::work& tx, std::string_view id) {
  return lifecycle::lock<Lifecycle>(tx, id);
}

void lock_all(pqxx::work& tx, const std::vector<std::string>& ids) {
  lifecycle::lock_all<Lifecycle>(tx, ids);
}

std::optional<FiatPayoutRow> transition(pqxx::work& tx, const FiatPayoutRow& current,
                                        std::initializer_list<FiatPayoutTrigger> triggers,
                                        const TransitionDetails& details) {
  return lifecycle::transition<Lifecycle>(tx, current, triggers, details);
}

std::optional<FiatPayoutRow> transition(pqxx::work& tx, const FiatPayoutRow& current,
                                        FiatPayoutTrigger trigger,
                                        const TransitionDetails& details) {
  return lifecycle::transition<Lifecycle>(tx, current, trigger, details);
}

GroupedWrites::Ahead create_ahead(const NewFiatPayout& request) {
  return claimed_create::request(
      kCreate, request.scope, request.endpoint, request.request_hash, request.id, request.amount,
      request.currency, request.country, request.beneficiary_name, request.account_type,
      crypto::hex_encode(request.account_sealed), request.account_masked_json, request.usdc_amount,
      request.rate, request.rate_as_of, request.amount_usd, request.metadata_json);
}

model::Result<CreateOutcome> create(pqxx::work& tx, const NewFiatPayout& request) {
  const auto& scope = request.scope;
  auto claimed = claimed_create::run(tx, create_ahead(request), scope, sql::column_count(kColumns));
  if (!claimed.ok()) return claimed.error();
  if (claimed->existing) return CreateOutcome{std::nullopt, std::move(claimed->existing)};
  const auto& limits = claimed->limits;
  if (auto within = spend::check_per_payout(request.amount_usd, limits); !within.ok()) {
    return within.error();
  }
  auto created = Lifecycle::read(*claimed->created);
  outbox::enqueue(tx, topics::kFiatPayoutsRequested, scope.org_id, scope.mode, request.id);
  if (!lifecycle::created<Lifecycle>(tx, created)) {
    return model::Error::make(model::ErrorCode::insufficient_balance,
                              "The available USDC balance is below the " + request.usdc_amount +
                                  " USDC this payout needs.");
  }
  if (auto reserved = spend::reserve(tx, scope.org_id, scope.mode, request.amount_usd, limits);
      !reserved.ok()) {
    return reserved.error();
  }
  return CreateOutcome{std::move(created), std::nullopt};
}

FiatPayoutRow record_send(pqxx::work& tx, const FiatPayoutRow& payout, bool accepted,
                          const std::string& partner_reference, int settlement_minutes) {
  pg::exec(tx, kRecordSend, payout.resource.id, std::string(accepted ? "accepted" : "rejected"),
           accepted ? std::optional<std::string>(partner_reference) : std::nullopt,
           settlement_minutes);
  auto sent = fiat_payouts::lock(tx, payout.resource.id);  // (not std::lock, found by ADL)
  model::invariant(sent.has_value(), "a fiat payout being sent is still there");
  return std::move(*sent);
}

RemainingDelays remaining_delays_ms(pqxx::transaction_base& tx, const std::vector<std::string>& ids,
                                    long delay_ms) {
  return read_remaining_delays(pg::exec(tx, kRemainingDelay, pg::sql_array(ids), delay_ms),
                               sql::column(kRemainingColumns, "id"),
                               sql::column(kRemainingColumns, "remaining_ms"));
}

model::Result<FiatPayoutRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    std::string_view id) {
  return lifecycle::cancel<Lifecycle>(pool, org_id, mode, id);
}

model::Result<FiatPayoutRow> approve(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                     std::string_view member_subject) {
  return lifecycle::decide<Lifecycle>(pool, org_id, id, member_subject,
                                      lifecycle::Decision::approve, organizations::hold_standing);
}

model::Result<FiatPayoutRow> reject(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                    std::string_view member_subject) {
  return lifecycle::decide<Lifecycle>(pool, org_id, id, member_subject, lifecycle::Decision::reject,
                                      organizations::hold_standing);
}

std::optional<FiatPayoutRow> find(pqxx::transaction_base& tx, std::string_view org_id,
                                  model::Mode mode, std::string_view id) {
  const auto rows = pg::exec(tx, kFind, std::string(id), std::string(org_id), mode_text(mode));
  if (rows.empty()) return std::nullopt;
  return Lifecycle::read(rows[0]);
}

model::Result<std::optional<FiatPayoutRow>> find(pg::Pool& pool, std::string_view org_id,
                                                 model::Mode mode, std::string_view id) {
  return pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<std::optional<FiatPayoutRow>> {
        return find(tx, org_id, mode, id);
      });
}

std::vector<FiatPayoutRow> find_many(pqxx::transaction_base& tx,
                                     const std::vector<std::string>& ids) {
  std::vector<FiatPayoutRow> rows;
  for (const auto& row : pg::exec(tx, kFindMany, pg::sql_array(ids)))
    rows.push_back(Lifecycle::read(row));
  return rows;
}

model::Result<std::optional<FiatPayoutRow>> find_any(pg::Pool& pool, std::string_view id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<FiatPayoutRow>> {
    const auto rows = pg::exec(tx, kFindAny, std::string(id));
    if (rows.empty()) return std::optional<FiatPayoutRow>();
    return std::optional<FiatPayoutRow>(Lifecycle::read(rows[0]));
  });
}

model::Result<Page<FiatPayoutRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        const ListFilters& filters, const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<FiatPayoutRow>> {
    std::vector<FiatPayoutRow> rows;
    for (const auto& row : pg::exec(tx, kList, std::string(org_id), mode_text(mode),
                                    query.limit + 1, query.starting_after, query.created_gte,
                                    query.created_lte, filters.status, filters.country)) {
      rows.push_back(Lifecycle::read(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

}  // namespace payrail::infra::store::fiat_payouts
