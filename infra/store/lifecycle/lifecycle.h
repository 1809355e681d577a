// The one lifecycle mechanism of payouts, fiat payouts and collections (docs/architecture.md
// "The lifecycle"): lock the row, apply a trigger through the resource's transition table
// (schemas/model/common/lifecycle.h), record it in the one transitions log
// (resource_transitions), run its effects, and write the row's change. The operations of the
// API (cancel, approve, reject) are written here once.
//
// Each resource describes itself to the mechanism with a `Lifecycle` struct in its store module
// (payouts::Lifecycle, fiat_payouts::Lifecycle, collections::Lifecycle):
//
//   using Row, Status, Trigger, Transition, Details;   // Row: resource (id, status text, mode),
//                                                      // org_id, status, event_sequence
//   static constexpr std::string_view kType;           // "payout": the log's resource_type
//   static constexpr std::string_view kNoun;           // "payout": "No such payout."
//   static constexpr auto& find, status_name, trigger_name, parse_status;  // the model's table
//   static const RowLocks& row_locks();                // lock statements, the deferred change
//   static Row read(const pqxx::row&);                 // the mapper, by name (read_common)
//   static void apply_details(Row& after, const Details&);  // its own columns (changed())
//   static DeferredRow change(const Row& current, const Row& after, const Details&);
//   static bool apply_effects(pqxx::work&, const Row& after, const Transition&, const Details&);
//                                                      // false: a hold found the balance short
//   static model::Status cancel_check(pqxx::work&, const Row&);  // a rule beyond the table
//   static model::Error cancel_refused(const Row&);
//   static Details decided_by(std::string_view member);
//   static void approved(pqxx::work&, const Row&);    // sends an approved resource on
//   static std::optional<std::string> actor(const Details&);
//
// The row's change is deferred to the commit (defer_row, LockOrder::resource_rows): a worker's
// batch changes its rows with one statement per table, guarded by each row's status as it was
// read. Every read of the table in the transaction (lock(), and the module's own reads through
// before_read()) writes the pending changes first, so nothing reads a row older than the change.
#pragma once

#include <pqxx/pqxx>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/lifecycle/resource_transitions.h"
#include "infra/store/sql/deferred_writes.h"
#include "infra/store/sql/row_locks.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"
#include "schemas/model/common/invariant.h"
#include "schemas/model/common/lifecycle.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::lifecycle {

// The row as a transition leaves it, as the deferred change writes it: the status, the events'
// sequence and a failure reason here, the resource's own columns through L::apply_details.
template <class L>
typename L::Row changed(const typename L::Row& current, typename L::Status to, int events,
                        const typename L::Details& details) {
  auto after = current;
  after.status = to;
  after.resource.status = std::string(L::status_name(to));
  after.event_sequence += events;
  if (details.failure_reason) after.resource.failure_reason = details.failure_reason;
  L::apply_details(after, details);
  return after;
}

// The columns every resource with a lifecycle has, read by name from a row of `kColumns` (the
// table's column list): the rest of the mapper reads the resource's own columns.
template <class L, const auto& kColumns>
typename L::Row read_common(const pqxx::row& row) {
  typename L::Row out;
  auto& resource = out.resource;
  resource.id = row[sql::column(kColumns, "id")].template as<std::string>();
  out.org_id = row[sql::column(kColumns, "org_id")].template as<std::string>();
  const auto mode = row[sql::column(kColumns, "mode")].template as<std::string>();
  resource.mode = *model::parse_mode(mode);
  resource.status = row[sql::column(kColumns, "status")].template as<std::string>();
  const auto status = L::parse_status(resource.status);
  model::invariant(status.has_value(), "a stored status is one of the resource's statuses");
  out.status = *status;
  resource.amount = row[sql::column(kColumns, "amount")].template as<std::string>();
  resource.currency = row[sql::column(kColumns, "currency")].template as<std::string>();
  resource.metadata_json = optional_text(row[sql::column(kColumns, "metadata")]);
  resource.failure_reason = optional_text(row[sql::column(kColumns, "failure_reason")]);
  resource.created_at = row[sql::column(kColumns, "created_at")].template as<std::string>();
  out.event_sequence = row[sql::column(kColumns, "event_sequence")].template as<int>();
  return out;
}

// Writes the table's changes deferred in this transaction, before a statement that reads it.
template <class L>
void before_read(pqxx::work& tx) {
  flush_deferred(tx, *L::row_locks().deferred_changes);
}

// The row, locked (FOR UPDATE), whatever its organization: the caller checks the scope.
template <class L>
[[nodiscard]] std::optional<typename L::Row> lock(pqxx::work& tx, std::string_view id) {
  const auto row = lock_one(tx, L::row_locks(), id);
  if (!row) return std::nullopt;
  return L::read(*row);
}

// Locks a worker batch's rows with one statement; each one's first lock() in this transaction
// then reads nothing.
template <class L>
void lock_all(pqxx::work& tx, const std::vector<std::string>& ids) {
  store::lock_all(tx, L::row_locks(), ids);
}

// Logs one step and runs its effects, with the row as that step left it. False when its hold
// found the balance short (possible only at creation).
template <class L>
[[nodiscard]] bool apply_step(pqxx::work& tx, const typename L::Row& row,
                              const typename L::Transition& step,
                              const typename L::Details& details) {
  const auto actor = L::actor(details);
  resource_transitions::log(
      tx, {L::kType, row.resource.id,
           step.from ? std::optional<std::string_view>(L::status_name(*step.from)) : std::nullopt,
           L::status_name(step.to), L::trigger_name(step.trigger),
           actor ? std::optional<std::string_view>(*actor) : std::nullopt});
  return L::apply_effects(tx, row, step, details);
}

// Applies `triggers` in turn with one change of the row (a pending payout's start of screening
// and its decision, say): each is logged and has its effects as if applied alone; `details` go
// with the last. nullopt, and no change, when the table forbids one of them from the current
// status. `current` must be the row as lock() read it in this transaction.
template <class L>
[[nodiscard]] std::optional<typename L::Row> transition(
    pqxx::work& tx, const typename L::Row& current,
    std::initializer_list<typename L::Trigger> triggers, const typename L::Details& details = {}) {
  const auto steps = model::find_transitions(current.status, triggers, L::find);
  if (!steps || steps->empty()) return std::nullopt;
  int events = 0;
  for (const auto& step : *steps) events += step.effects.event ? 1 : 0;
  const auto after = changed<L>(current, steps->back().to, events, details);
  const auto& changes = *L::row_locks().deferred_changes;
  // A row changed twice in one transaction without being locked again in between (a payment and
  // its return applied together): its first change is written before the second is deferred, as
  // one statement cannot apply two changes of one row in order. (A change row's first parameter
  // is the row's id.)
  if (any_deferred(tx, changes,
                   [&](const DeferredRow& change) { return change[0] == current.resource.id; })) {
    flush_deferred(tx, changes);
  }
  defer_row(tx, changes, LockOrder::resource_rows, L::change(current, after, details));
  // Each step sees the row as it left it: the last one's details, its status, its sequence.
  auto row = after;
  row.event_sequence -= events;
  for (const auto& step : *steps) {
    row.status = step.to;
    row.resource.status = std::string(L::status_name(step.to));
    if (step.effects.event) ++row.event_sequence;
    model::invariant(apply_step<L>(tx, row, step, details),
                     "only a creation's hold can find the balance short");
  }
  model::invariant(row.event_sequence == after.event_sequence,
                   "a transition's steps take exactly its event sequence numbers");
  return after;
}

template <class L>
[[nodiscard]] std::optional<typename L::Row> transition(pqxx::work& tx,
                                                        const typename L::Row& current,
                                                        typename L::Trigger trigger,
                                                        const typename L::Details& details = {}) {
  return transition<L>(tx, current, {trigger}, details);
}

// The creation of `created` (just inserted): its first row of the table, logged, with its
// effects. False when its hold found the balance short: the caller refuses the create.
template <class L>
[[nodiscard]] bool created(pqxx::work& tx, const typename L::Row& created,
                           const typename L::Details& details = {}) {
  const auto step = L::find(std::nullopt, L::Trigger::create);
  model::invariant(step.has_value(), "a lifecycle table has its creation row");
  return apply_step<L>(tx, created, *step, details);
}

template <class L>
model::Error missing() {
  return model::Error::make(model::ErrorCode::resource_missing,
                            "No such " + std::string(L::kNoun) + ".");
}

// The row of `id` if it is in the scope (its organization, and its mode when given), locked.
template <class L>
model::Result<typename L::Row> lock_in_scope(pqxx::work& tx, std::string_view id,
                                             std::string_view org_id,
                                             std::optional<model::Mode> mode) {
  auto row = lock<L>(tx, id);
  if (!row || row->org_id != org_id || (mode && row->resource.mode != *mode)) return missing<L>();
  return std::move(*row);
}

// Applies `trigger` to a row the caller locked; `forbidden` when the table refuses it.
template <class L>
model::Result<typename L::Row> operate(pqxx::work& tx, const typename L::Row& row,
                                       typename L::Trigger trigger, model::Error forbidden,
                                       const typename L::Details& details = {}) {
  auto after = transition<L>(tx, row, trigger, details);
  if (!after) return forbidden;
  return std::move(*after);
}

// Cancels a row the caller holds locked (an organization's closing cancels many):
// `L::cancel_refused(row)` when the table or the resource's own rule (L::cancel_check) refuses.
template <class L>
model::Result<typename L::Row> cancel_locked(pqxx::work& tx, const typename L::Row& row,
                                             const typename L::Details& details = {}) {
  if (auto allowed = L::cancel_check(tx, row); !allowed.ok()) return allowed.error();
  return operate<L>(tx, row, L::Trigger::cancel, L::cancel_refused(row), details);
}

// The API's cancel: resource_missing outside the caller's scope, then cancel_locked().
template <class L>
model::Result<typename L::Row> cancel(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                      std::string_view id,
                                      const typename L::Details& details = {}) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<typename L::Row> {
    auto row = lock_in_scope<L>(tx, id, org_id, mode);
    if (!row.ok()) return row.error();
    return cancel_locked<L>(tx, *row, details);
  });
}

// A member's decision on a held resource (approve or reject). The organization's standing is
// held first (`hold_standing`: org_suspended unless active, and no suspension or close in
// between); another organization's resource is resource_missing; the table refuses anything but
// pending_approval (payout_not_approvable). An approval sends the resource on (L::approved).
enum class Decision { approve, reject };
template <class L, class HoldStanding>
model::Result<typename L::Row> decide(pg::Pool& pool, std::string_view org_id, std::string_view id,
                                      std::string_view member_subject, Decision decision,
                                      HoldStanding hold_standing) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<typename L::Row> {
    if (auto standing = hold_standing(tx, org_id); !standing.ok()) return standing.error();
    auto row = lock_in_scope<L>(tx, id, org_id, std::nullopt);
    if (!row.ok()) return row.error();
    const bool approve = decision == Decision::approve;
    const auto refused = model::Error::make(
        model::ErrorCode::payout_not_approvable,
        "Only a " + std::string(L::kNoun) + " pending approval can be " +
            (approve ? "approved" : "rejected") + "; this one is " + row->resource.status + ".");
    auto after = operate<L>(tx, *row, approve ? L::Trigger::approve : L::Trigger::reject, refused,
                            L::decided_by(member_subject));
    if (after.ok() && approve) L::approved(tx, *after);
    return after;
  });
}

}  // namespace payrail::infra::store::lifecycle
