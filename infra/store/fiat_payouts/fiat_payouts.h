// Fiat payout storage. Every state change goes through transition(), which applies one row of the
// fiat payout transition table (schemas/model/fiat_payouts/fiat_payout_lifecycle.h), or several in
// turn with one write, with all their effects in the caller's transaction: status,
// transitions log, ledger movement of the USDC funding, spend counters and event. The
// account is stored sealed (its full form) and masked (what responses show); only the execution
// worker opens the sealed form, to send it to the partner.
#pragma once

#include <pqxx/pqxx>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/payouts/payouts.h"
#include "infra/store/sql/listing.h"
#include "infra/store/sql/sql.h"
#include "schemas/model/fiat_payouts/fiat_payout.h"
#include "schemas/model/fiat_payouts/fiat_payout_lifecycle.h"

namespace payrail::infra::store::fiat_payouts {

struct FiatPayoutRow {
  model::FiatPayout resource;
  std::string org_id;
  model::FiatPayoutStatus status = model::FiatPayoutStatus::pending;
  std::string account_type;
  std::string account_sealed;  // nonce || ciphertext || tag of the full account JSON
  std::string amount_usd;
  std::optional<std::string> partner_outcome;  // accepted | rejected, once sent
  int event_sequence = 0;
};

// One screening decision type for stablecoin and fiat payouts.
using ScreeningResult = payouts::ScreeningResult;

struct TransitionDetails {
  std::optional<ScreeningResult> screening;
  std::optional<std::string> failure_reason;
  std::optional<std::string> actor;  // the member who approved or rejected
};

// How fiat payouts take part in the one lifecycle mechanism (infra/store/lifecycle/lifecycle.h).
struct Lifecycle {
  using Row = FiatPayoutRow;
  using Status = model::FiatPayoutStatus;
  using Trigger = model::FiatPayoutTrigger;
  using Transition = model::FiatPayoutTransition;
  using Details = TransitionDetails;
  static constexpr std::string_view kType = "fiat_payout";
  static constexpr std::string_view kNoun = "fiat payout";
  static constexpr auto& find = model::find_fiat_payout_transition;
  static constexpr auto& status_name = model::fiat_payout_status_name;
  static constexpr auto& trigger_name = model::fiat_payout_trigger_name;
  static constexpr auto& parse_status = model::parse_fiat_payout_status;
  static const RowLocks& row_locks();
  static Row read(const pqxx::row& row);
  static void apply_details(Row& after, const Details& details);  // its own columns
  static DeferredRow change(const Row& current, const Row& after, const Details& details);
  static bool apply_effects(pqxx::work& tx, const Row& after, const Transition& step,
                            const Details& details);
  static std::optional<std::string> actor(const Details& details) { return details.actor; }
  static model::Status cancel_check(pqxx::work&, const Row&) { return model::ok_status(); }
  static model::Error cancel_refused(const Row& row);
  static Details decided_by(std::string_view member) { return {.actor = std::string(member)}; }
  static void approved(pqxx::work& tx, const Row& row);  // on to the partner
};

// Reads and locks a fiat payout (FOR UPDATE) for a worker; any organization.
[[nodiscard]] std::optional<FiatPayoutRow> lock(pqxx::work& tx, std::string_view id);
// Locks a worker batch's fiat payouts with one statement: each one's first lock() in this
// transaction then reads nothing (RowLocks, infra/store/sql/row_locks.h).
void lock_all(pqxx::work& tx, const std::vector<std::string>& ids);

// Applies `triggers` in turn with one change of the row (lifecycle::transition): the fiat payout
// as they leave it, or nullopt (and no change) when the table forbids one of them.
[[nodiscard]] std::optional<FiatPayoutRow> transition(
    pqxx::work& tx, const FiatPayoutRow& current,
    std::initializer_list<model::FiatPayoutTrigger> triggers,
    const TransitionDetails& details = {});
[[nodiscard]] std::optional<FiatPayoutRow> transition(pqxx::work& tx, const FiatPayoutRow& current,
                                                      model::FiatPayoutTrigger trigger,
                                                      const TransitionDetails& details = {});

struct NewFiatPayout {
  std::string id;            // chosen by the caller ("fpo_..."), so it can wait for it first
  idempotency::Scope scope;  // organization, mode, Idempotency-Key
  std::string endpoint;
  std::string request_hash;
  std::string amount;
  std::string currency;
  std::string country;
  std::string beneficiary_name;
  std::string account_type;
  std::string account_sealed;
  std::string account_masked_json;
  std::string usdc_amount;  // held: amount / rate rounded up to 6 decimals
  std::string rate;         // USDC -> currency
  std::string rate_as_of;
  std::string amount_usd;
  std::optional<std::string> metadata_json;
};

// Every fiat payout is funded from (holds) the organization's USDC balance.
inline constexpr std::string_view kFundingAsset = "USDC";

struct CreateOutcome {
  std::optional<FiatPayoutRow> created;
  std::optional<idempotency::Record> existing;  // the key was already used
};

// Checks in the payouts' fixed order: idempotency record, per-payout limit, hold of the USDC
// funding (insufficient_balance), daily then monthly limits (limit_exceeded), then the fiat payout
// `pending` and its fiat_payouts.requested message. Runs in the caller's transaction, which may
// hold other creates (store::GroupedWrites, keyed by ledger::balance_key of USDC): a refusal is an
// error result, and the caller rolls back what it wrote.
model::Result<CreateOutcome> create(pqxx::work& tx, const NewFiatPayout& request);
// The claim and insert of create() (claimed_create.h), which a group of creates reads ahead
// (GroupedWrites::Ahead): create() then takes that row instead of running its statement.
GroupedWrites::Ahead create_ahead(const NewFiatPayout& request);

// Records the partner's answer to the send (sent_at now, and when accepted its reference and
// tracking.estimated_settlement `settlement_minutes` later) unless an answer is already recorded:
// the first recorded answer wins. Returns the payout as it now is.
FiatPayoutRow record_send(pqxx::work& tx, const FiatPayoutRow& payout, bool accepted,
                          const std::string& partner_reference, int settlement_minutes);
// Milliseconds until `delay_ms` after the partner accepted each payout (database time), one
// statement for a settlement batch; 0 when past or not sent.
RemainingDelays remaining_delays_ms(pqxx::transaction_base& tx, const std::vector<std::string>& ids,
                                    long delay_ms);

// Intent-named operations of the API. Errors: resource_missing (not this organization's),
// payout_not_cancelable / payout_not_approvable (the table forbids it from the current status).
model::Result<FiatPayoutRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    std::string_view id);
// A member's decision holds the organization's standing first (organizations::hold_standing:
// org_suspended unless it is active, and no suspension or close in between); a fiat payout of
// another organization is resource_missing.
model::Result<FiatPayoutRow> approve(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                     std::string_view member_subject);
model::Result<FiatPayoutRow> reject(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                    std::string_view member_subject);

std::optional<FiatPayoutRow> find(pqxx::transaction_base& tx, std::string_view org_id,
                                  model::Mode mode, std::string_view id);
model::Result<std::optional<FiatPayoutRow>> find(pg::Pool& pool, std::string_view org_id,
                                                 model::Mode mode, std::string_view id);
// The rows of `ids` that exist, whatever their organization (the caller checks it), in no
// particular order: one statement for the answers of creates decided together.
std::vector<FiatPayoutRow> find_many(pqxx::transaction_base& tx,
                                     const std::vector<std::string>& ids);
// For identity-provider sessions, which are not bound to one organization and mode.
model::Result<std::optional<FiatPayoutRow>> find_any(pg::Pool& pool, std::string_view id);

struct ListFilters {
  std::optional<std::string> status;
  std::optional<std::string> country;
};

model::Result<Page<FiatPayoutRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                        const ListFilters& filters, const ListQuery& query);

}  // namespace payrail::infra::store::fiat_payouts
