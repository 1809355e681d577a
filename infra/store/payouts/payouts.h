// Payout storage. Every state change goes through transition(), which applies one row of the
// payout transition table (schemas/model/payouts/payout_lifecycle.h), or several in turn with one
// write, with all their effects in the caller's transaction: status, transition log, ledger
// movement, spend counters and event.
#pragma once

#include <pqxx/pqxx>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/creates/idempotency.h"
#include "infra/store/sql/listing.h"
#include "infra/store/sql/sql.h"
#include "schemas/model/money/limits.h"
#include "schemas/model/payouts/payout.h"
#include "schemas/model/payouts/payout_lifecycle.h"

namespace payrail::infra::store::payouts {

struct PayoutRow {
  model::Payout resource;
  std::string org_id;
  model::PayoutStatus status = model::PayoutStatus::pending;
  std::string amount_usd;
  int event_sequence = 0;
};

struct ScreeningResult {
  bool blocked = false;
  std::vector<std::string> reasons;  // ofac_sdn, internal_blacklist
  std::string list_version;
};

struct TransitionDetails {
  std::optional<ScreeningResult> screening;
  std::optional<std::string> tx_hash;
  std::optional<std::string> failure_reason;
  std::optional<std::string> approved_by;
};

// How payouts take part in the one lifecycle mechanism (infra/store/lifecycle/lifecycle.h).
struct Lifecycle {
  using Row = PayoutRow;
  using Status = model::PayoutStatus;
  using Trigger = model::PayoutTrigger;
  using Transition = model::PayoutTransition;
  using Details = TransitionDetails;
  static constexpr std::string_view kType = "payout";
  static constexpr std::string_view kNoun = "payout";
  static constexpr auto& find = model::find_payout_transition;
  static constexpr auto& status_name = model::payout_status_name;
  static constexpr auto& trigger_name = model::payout_trigger_name;
  static constexpr auto& parse_status = model::parse_payout_status;
  static const RowLocks& row_locks();
  static Row read(const pqxx::row& row);
  static void apply_details(Row& after, const Details& details);  // its own columns
  static DeferredRow change(const Row& current, const Row& after, const Details& details);
  static bool apply_effects(pqxx::work& tx, const Row& after, const Transition& step,
                            const Details& details);
  static std::optional<std::string> actor(const Details& details) { return details.approved_by; }
  static model::Status cancel_check(pqxx::work&, const Row&) { return model::ok_status(); }
  static model::Error cancel_refused(const Row& row);
  static Details decided_by(std::string_view member) {
    return {.approved_by = std::string(member)};
  }
  static void approved(pqxx::work& tx, const Row& row);  // on to execution
};

// Reads and locks a payout (FOR UPDATE) for a worker; any organization.
[[nodiscard]] std::optional<PayoutRow> lock(pqxx::work& tx, std::string_view payout_id);
// Locks a worker batch's payouts with one statement: each one's first lock() in this
// transaction then reads nothing (RowLocks, infra/store/sql/row_locks.h).
void lock_all(pqxx::work& tx, const std::vector<std::string>& payout_ids);
// lock_all() for execution's batch: the statement reads each payout's broadcast attempt too, and
// keeps it for broadcasts::begin() and finish() (broadcasts::keep_attempt).
void lock_all_with_broadcasts(pqxx::work& tx, const std::vector<std::string>& payout_ids);

// Applies `triggers` in turn with one change of the row (lifecycle::transition): the payout as
// they leave it, or nullopt (and no change) when the table forbids one of them.
[[nodiscard]] std::optional<PayoutRow> transition(
    pqxx::work& tx, const PayoutRow& current, std::initializer_list<model::PayoutTrigger> triggers,
    const TransitionDetails& details = {});
[[nodiscard]] std::optional<PayoutRow> transition(pqxx::work& tx, const PayoutRow& current,
                                                  model::PayoutTrigger trigger,
                                                  const TransitionDetails& details = {});

struct NewPayout {
  std::string id;            // chosen by the caller ("po_..."), so it can wait for it first
  idempotency::Scope scope;  // organization, mode, Idempotency-Key
  std::string endpoint;
  std::string request_hash;
  std::string amount;
  std::string currency;
  std::string network;
  std::string address;
  std::optional<std::string> metadata_json;
  std::string amount_usd;
};

struct CreateOutcome {
  std::optional<PayoutRow> created;
  std::optional<idempotency::Record> existing;  // the key was already used
};

// Checks in a fixed order: idempotency record, per-payout limit, hold on the balance
// (insufficient_balance), daily then monthly limits (limit_exceeded), then the payout `pending`,
// its event and the payouts.requested message. Runs in the caller's transaction, which may hold
// other creates (store::GroupedWrites, keyed by ledger::balance_key of the payout's currency): a
// refusal is an error result, and the caller rolls back what it wrote.
model::Result<CreateOutcome> create(pqxx::work& tx, const NewPayout& request);
// The claim and insert of create() (claimed_create.h), which a group of creates reads ahead
// (GroupedWrites::Ahead): create() then takes that row instead of running its statement.
GroupedWrites::Ahead create_ahead(const NewPayout& request);

// Intent-named operations of the API. Errors: resource_missing (not this organization's),
// payout_not_cancelable / payout_not_approvable (the table forbids it from the current status).
model::Result<PayoutRow> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                std::string_view payout_id);
// A member's decision holds the organization's standing first (organizations::hold_standing:
// org_suspended unless it is active, and no suspension or close in between); a payout of
// another organization is resource_missing.
model::Result<PayoutRow> approve(pg::Pool& pool, std::string_view org_id,
                                 std::string_view payout_id, std::string_view member_subject);
model::Result<PayoutRow> reject(pg::Pool& pool, std::string_view org_id, std::string_view payout_id,
                                std::string_view member_subject);

std::optional<PayoutRow> find(pqxx::transaction_base& tx, std::string_view org_id, model::Mode mode,
                              std::string_view payout_id);
model::Result<std::optional<PayoutRow>> find(pg::Pool& pool, std::string_view org_id,
                                             model::Mode mode, std::string_view payout_id);
// The rows of `ids` that exist, whatever their organization (the caller checks it), in no
// particular order: one statement for the answers of creates decided together.
std::vector<PayoutRow> find_many(pqxx::transaction_base& tx, const std::vector<std::string>& ids);
// For identity-provider sessions, which are not bound to one organization and mode.
model::Result<std::optional<PayoutRow>> find_any(pg::Pool& pool, std::string_view payout_id);

model::Result<Page<PayoutRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    const std::optional<std::string>& status,
                                    const ListQuery& query);

}  // namespace payrail::infra::store::payouts
