#include "infra/store/fiat_payouts/fiat_payouts.h"

#include <stdexcept>

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/creates/claimed_create.h"
#include "infra/store/lifecycle/resource_transitions.h"
#include "infra/store/lifecycle/transition_steps.h"
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

constexpr std::string_view kResource = "fiat_payout";

#define PAYRAIL_FIAT_PAYOUT_COLUMNS \
  "id, org_id, mode, status, amount::text, currency, country, beneficiary_name, account_type, "   \
  "account_sealed, account_masked, usdc_amount::text, rate::text, " PAYRAIL_TIMESTAMP(            \
      "rate_as_of") ", amount_usd::text, metadata, screening_status, screening_reasons, "         \
                    "partner_reference, partner_outcome, " PAYRAIL_TIMESTAMP(                     \
                        "estimated_settlement_at") ", failure_reason, " PAYRAIL_TIMESTAMP(        \
                        "created_at") ", event_sequence"

constexpr pg::Statement kLock{"fiat_payouts_lock", "SELECT " PAYRAIL_FIAT_PAYOUT_COLUMNS
                                                   " FROM fiat_payouts WHERE id = $1 FOR UPDATE"};
constexpr pg::Statement kLockAll{
    "fiat_payouts_lock_all",
    "SELECT " PAYRAIL_FIAT_PAYOUT_COLUMNS
    " FROM fiat_payouts WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED"};
constexpr RowLocks kRowLocks{"fiat_payouts", kLock, kLockAll};

constexpr pg::Statement kFind{"fiat_payouts_find",
                              "SELECT " PAYRAIL_FIAT_PAYOUT_COLUMNS
                              " FROM fiat_payouts WHERE id = $1 AND org_id = $2 AND mode = $3"};

constexpr pg::Statement kFindAny{"fiat_payouts_find_any", "SELECT " PAYRAIL_FIAT_PAYOUT_COLUMNS
                                                          " FROM fiat_payouts WHERE id = $1"};

// The rows of these ids that exist, in no particular order (the answers of creates decided
// together).
constexpr pg::Statement kFindMany{"fiat_payouts_find_many",
                                  "SELECT " PAYRAIL_FIAT_PAYOUT_COLUMNS
                                  " FROM fiat_payouts WHERE id = ANY($1::text[])"};

constexpr pg::Statement kList{
    "fiat_payouts_list",
    "SELECT " PAYRAIL_FIAT_PAYOUT_COLUMNS
    " FROM fiat_payouts WHERE ($7::text IS NULL OR status = $7) AND ($8::text IS NULL OR "
    "country = $8) AND" PAYRAIL_KEYSET_CONDITIONS("fiat_payouts") PAYRAIL_KEYSET_ORDER,
    pg::Plan::custom};

// The claim, the limit overrides and the insert in one statement (claimed_create.h).
constexpr pg::Statement kCreate{
    "fiat_payouts_create",
    PAYRAIL_CLAIMED_CREATE(
        "INSERT INTO fiat_payouts (id, org_id, mode, status, amount, currency, country, "
        "beneficiary_name, account_type, account_sealed, account_masked, usdc_amount, rate, "
        "rate_as_of, amount_usd, metadata, event_sequence) SELECT $6::text, $1::text, $2::text, "
        "'pending', $7::numeric, $8::text, $9::text, $10::text, $11::text, $12::bytea, "
        "$13::text, $14::numeric, $15::numeric, $16::timestamptz, $17::numeric, $18::text, 0 "
        "FROM claimed RETURNING " PAYRAIL_FIAT_PAYOUT_COLUMNS)};

// The same for a group of creates, read ahead by its first pass (claimed_create.h).
constexpr pg::Statement kCreateAhead{
    "fiat_payouts_create_ahead",
    PAYRAIL_CLAIMED_CREATES(
        "$7::numeric[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], "
        "$13::text[], $14::numeric[], $15::numeric[], $16::timestamptz[], $17::numeric[], "
        "$18::text[]",
        "amount, currency, country, beneficiary_name, account_type, account_sealed, "
        "account_masked, usdc_amount, rate, rate_as_of, amount_usd, metadata",
        "INSERT INTO fiat_payouts (id, org_id, mode, status, amount, currency, country, "
        "beneficiary_name, account_type, account_sealed, account_masked, usdc_amount, rate, "
        "rate_as_of, amount_usd, metadata, event_sequence) SELECT id, org_id, mode, 'pending', "
        "amount, currency, country, beneficiary_name, account_type, decode(account_sealed, "
        "'hex'), account_masked, usdc_amount, rate, rate_as_of, amount_usd, metadata, 0 FROM "
        "request WHERE id IN (SELECT resource_id FROM claimed) ORDER BY position "
        "RETURNING " PAYRAIL_FIAT_PAYOUT_COLUMNS)};

constexpr pg::Statement kUpdate{
    "fiat_payouts_update",
    "UPDATE fiat_payouts SET status = $2, event_sequence = event_sequence + $3, "
    "screening_status = coalesce($4, screening_status), "
    "screening_reasons = coalesce($5::text[], screening_reasons), "
    "screening_list_version = coalesce($6, screening_list_version), "
    "screened_at = CASE WHEN $4::text IS NULL THEN screened_at ELSE now() END, "
    "failure_reason = coalesce($7, failure_reason), approved_by = coalesce($8, approved_by), "
    "updated_at = now() WHERE id = $1 AND status = $9 RETURNING " PAYRAIL_FIAT_PAYOUT_COLUMNS};

constexpr pg::Statement kRecordSend{
    "fiat_payouts_record_send",
    "UPDATE fiat_payouts SET partner_outcome = $2, partner_reference = $3, sent_at = now(), "
    "estimated_settlement_at = CASE WHEN $2 = 'accepted' THEN now() + $4 * interval '1 minute' "
    "END, updated_at = now() WHERE id = $1 AND partner_outcome IS NULL"};

constexpr pg::Statement kRemainingDelay{
    "fiat_payouts_remaining_delays",
    "SELECT id, greatest(0, ceil(extract(epoch FROM (sent_at + $2 * interval '1 millisecond' - "
    "clock_timestamp())) * 1000))::bigint FROM fiat_payouts WHERE id = ANY($1::text[])"};

FiatPayoutRow read_row(const pqxx::row& row) {
  FiatPayoutRow payout;
  auto& resource = payout.resource;
  resource.id = row[0].as<std::string>();
  payout.org_id = row[1].as<std::string>();
  resource.mode = *model::parse_mode(row[2].as<std::string>());
  resource.status = row[3].as<std::string>();
  payout.status = *model::parse_fiat_payout_status(resource.status);
  resource.amount = row[4].as<std::string>();
  resource.currency = row[5].as<std::string>();
  resource.country = row[6].as<std::string>();
  resource.beneficiary_name = row[7].as<std::string>();
  payout.account_type = row[8].as<std::string>();
  payout.account_sealed = pqxx::binarystring(row[9]).str();
  resource.account_masked_json = row[10].as<std::string>();
  resource.funding = {row[11].as<std::string>(), row[12].as<std::string>(),
                      row[13].as<std::string>()};
  payout.amount_usd = row[14].as<std::string>();
  resource.metadata_json = optional_text(row[15]);
  resource.screening_status = row[16].as<std::string>();
  resource.screening_reasons = parse_text_array(row[17]);
  const auto reference = optional_text(row[18]);
  payout.partner_outcome = optional_text(row[19]);
  const auto estimated = optional_text(row[20]);
  if (reference && estimated) resource.tracking = model::FiatTracking{*reference, *estimated};
  resource.failure_reason = optional_text(row[21]);
  resource.created_at = row[22].as<std::string>();
  payout.event_sequence = row[23].as<int>();
  return payout;
}

void log_transition(pqxx::work& tx, const FiatPayoutRow& after,
                    const model::FiatPayoutTransition& transition,
                    const std::optional<std::string>& actor) {
  resource_transitions::log(
      tx, {kResource, after.resource.id,
           transition.from
               ? std::optional<std::string_view>(model::fiat_payout_status_name(*transition.from))
               : std::nullopt,
           model::fiat_payout_status_name(transition.to),
           model::fiat_payout_trigger_name(transition.trigger),
           actor ? std::optional<std::string_view>(*actor) : std::nullopt});
}

// Everything a transition does besides the status itself. Returns false when the hold found the
// balance short (only possible at creation; the caller rolls back). The organization's hot rows
// (its balance, then its spend counters) come last, so their locks are held for the fewest round
// trips before the commit.
bool apply_effects(pqxx::work& tx, const FiatPayoutRow& after,
                   const model::FiatPayoutTransition& transition,
                   const std::optional<std::string>& actor) {
  log_transition(tx, after, transition, actor);
  const auto& resource = after.resource;
  if (transition.effects.event) {
    const std::string type(*transition.effects.event);
    events::append(tx,
                   {after.org_id, resource.mode, type, std::string(kResource), resource.id,
                    after.event_sequence},
                   [&](const std::string& event_id, const std::string& occurred_at) {
                     return model::fiat_payout_event_json(resource, type, event_id, occurred_at,
                                                          after.event_sequence);
                   });
  }
  if (const auto movement =
          ledger::movement_of(transition.effects.money, ledger::Movement::settle_fiat)) {
    const auto applied = ledger::apply(tx, after.org_id, resource.mode, kFundingAsset, *movement,
                                       resource.id, resource.funding.usdc_amount);
    if (applied == ledger::Applied::insufficient_balance) return false;
  }
  if (transition.effects.returns_spend) {
    spend::give_back(tx, {after.org_id, resource.mode, after.amount_usd, resource.created_at});
  }
  return true;
}

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

// The screening columns of an update: all null unless a decision is recorded.
struct ScreeningColumns {
  std::optional<std::string> status;
  std::optional<std::string> reasons;
  std::optional<std::string> list_version;
};

ScreeningColumns screening_columns(const std::optional<ScreeningResult>& screening) {
  if (!screening) return {};
  return {std::string(screening->blocked ? "blocked" : "clear"), pg::sql_array(screening->reasons),
          screening->list_version};
}

}  // namespace

std::optional<FiatPayoutRow> lock(pqxx::work& tx, std::string_view id) {
  const auto row = lock_one(tx, kRowLocks, id);
  if (!row) return std::nullopt;
  return read_row(*row);
}

void lock_all(pqxx::work& tx, const std::vector<std::string>& ids) {
  store::lock_all(tx, kRowLocks, ids);
}

std::optional<FiatPayoutRow> transition(pqxx::work& tx, const FiatPayoutRow& current,
                                        std::initializer_list<FiatPayoutTrigger> triggers,
                                        const TransitionDetails& details) {
  const auto steps =
      model::find_transitions(current.status, triggers, model::find_fiat_payout_transition);
  if (!steps || steps->empty()) return std::nullopt;
  const auto screening = screening_columns(details.screening);
  const auto events = count_events(*steps);
  const auto rows = pg::exec(tx, kUpdate, current.resource.id,
                             std::string(model::fiat_payout_status_name(steps->back().to)), events,
                             screening.status, screening.reasons, screening.list_version,
                             details.failure_reason, details.actor, current.resource.status);
  if (rows.empty()) return std::nullopt;  // changed since it was locked: cannot happen under lock
  auto after = read_row(rows[0]);
  for_each_step(after, *steps, model::fiat_payout_status_name,
                [&](const FiatPayoutRow& row, const auto& step) {
                  if (!apply_effects(tx, row, step, details.actor))
                    throw std::logic_error("fiat payout transition found the held balance short");
                });
  return after;
}

pg::GroupedWrites::Ahead create_ahead(const NewFiatPayout& request) {
  return claimed_create::ahead(kCreateAhead, request.scope, request.endpoint, request.request_hash,
                               request.id, request.amount, request.currency, request.country,
                               request.beneficiary_name, request.account_type,
                               crypto::hex_encode(request.account_sealed),
                               request.account_masked_json, request.usdc_amount, request.rate,
                               request.rate_as_of, request.amount_usd, request.metadata_json);
}

model::Result<CreateOutcome> create(pqxx::work& tx, const NewFiatPayout& request) {
  const auto& id = request.id;
  const auto& scope = request.scope;
  auto claimed = claimed_create::run(
      tx, kCreate, kCreateAhead, scope, request.endpoint, request.request_hash, id,
      request.amount_usd, request.amount, request.currency, request.country,
      request.beneficiary_name, request.account_type,
      pqxx::binarystring(request.account_sealed.data(), request.account_sealed.size()),
      request.account_masked_json, request.usdc_amount, request.rate, request.rate_as_of,
      request.amount_usd, request.metadata_json);
  if (!claimed.ok()) return claimed.error();
  if (claimed->existing) return CreateOutcome{std::nullopt, std::move(claimed->existing)};
  const auto& limits = claimed->limits;
  auto created = read_row(*claimed->created);
  outbox::enqueue(tx, topics::kFiatPayoutsRequested, scope.org_id, scope.mode, id);
  const auto transition =
      *model::find_fiat_payout_transition(std::nullopt, FiatPayoutTrigger::create);
  if (!apply_effects(tx, created, transition, std::nullopt)) {
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
  return *fiat_payouts::lock(tx, payout.resource.id);
}

RemainingDelays remaining_delays_ms(pqxx::transaction_base& tx, const std::vector<std::string>& ids,
                                    long delay_ms) {
  return read_remaining_delays(pg::exec(tx, kRemainingDelay, pg::sql_array(ids), delay_ms));
}

namespace {

model::Error missing_payout() {
  return model::Error::make(model::ErrorCode::resource_missing, "No such fiat payout.");
}

model::Error not_approvable(const FiatPayoutRow& payout, std::string_view action) {
  return model::Error::make(model::ErrorCode::payout_not_approvable,
                            "Only a fiat payout pending approval can be " + std::string(action) +
                                "; this one is " + payout.resource.status + ".");
}

// Applies `trigger`; `forbidden` is the error when the table refuses.
model::Result<FiatPayoutRow> apply_operation(pqxx::work& tx, const FiatPayoutRow& payout,
                                             FiatPayoutTrigger trigger, model::Error forbidden,
                                             const TransitionDetails& details = {}) {
  auto after = transition(tx, payout, trigger, details);
  if (!after) return forbidden;
  return std::move(*after);
}

}  // namespace

model::Result<FiatPayoutRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    std::string_view id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<FiatPayoutRow> {
    const auto payout = lock(tx, id);
    if (!payout || payout->org_id != org_id || payout->resource.mode != mode) {
      return missing_payout();
    }
    return apply_operation(tx, *payout, FiatPayoutTrigger::cancel,
                           model::Error::make(model::ErrorCode::payout_not_cancelable,
                                              "A fiat payout that is " + payout->resource.status +
                                                  " cannot be cancelled."));
  });
}

model::Result<FiatPayoutRow> approve(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                     std::string_view member_subject) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<FiatPayoutRow> {
    if (auto standing = organizations::hold_standing(tx, org_id); !standing.ok()) {
      return standing.error();
    }
    const auto payout = lock(tx, id);
    if (!payout || payout->org_id != org_id) return missing_payout();
    auto after = apply_operation(tx, *payout, FiatPayoutTrigger::approve,
                                 not_approvable(*payout, "approved"),
                                 {.actor = std::string(member_subject)});
    if (after.ok()) {
      outbox::enqueue(tx, topics::kFiatPayoutsApproved, after->org_id, after->resource.mode,
                      after->resource.id);
    }
    return after;
  });
}

model::Result<FiatPayoutRow> reject(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                    std::string_view member_subject) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<FiatPayoutRow> {
    if (auto standing = organizations::hold_standing(tx, org_id); !standing.ok()) {
      return standing.error();
    }
    const auto payout = lock(tx, id);
    if (!payout || payout->org_id != org_id) return missing_payout();
    return apply_operation(tx, *payout, FiatPayoutTrigger::reject,
                           not_approvable(*payout, "rejected"),
                           {.actor = std::string(member_subject)});
  });
}

std::optional<FiatPayoutRow> find(pqxx::transaction_base& tx, std::string_view org_id,
                                  model::Mode mode, std::string_view id) {
  const auto rows = pg::exec(tx, kFind, std::string(id), std::string(org_id), mode_text(mode));
  if (rows.empty()) return std::nullopt;
  return read_row(rows[0]);
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
  for (const auto& row : pg::exec(tx, kFindMany, pg::sql_array(ids))) rows.push_back(read_row(row));
  return rows;
}

model::Result<std::optional<FiatPayoutRow>> find_any(pg::Pool& pool, std::string_view id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<FiatPayoutRow>> {
    const auto rows = pg::exec(tx, kFindAny, std::string(id));
    if (rows.empty()) return std::optional<FiatPayoutRow>();
    return std::optional<FiatPayoutRow>(read_row(rows[0]));
  });
}

model::Result<Page<FiatPayoutRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        const ListFilters& filters, const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<FiatPayoutRow>> {
    std::vector<FiatPayoutRow> rows;
    for (const auto& row : pg::exec(tx, kList, std::string(org_id), mode_text(mode),
                                    query.limit + 1, query.starting_after, query.created_gte,
                                    query.created_lte, filters.status, filters.country)) {
      rows.push_back(read_row(row));
    }
    return make_page(std::move(rows), query.limit);
  });
}

}  // namespace payrail::infra::store::fiat_payouts
