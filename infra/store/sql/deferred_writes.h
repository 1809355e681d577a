// Writes deferred to the end of the transaction: the rows given to defer_row() for one statement
// are written by one execution of it (pg::exec_rows: one array parameter per column), just before
// Pool::transact commits, or earlier at flush_deferred(). A row lock the statement takes (an
// organization's balance) is then held only from there to the commit, not for the rest of the
// transaction, and a worker's batch writes its messages' rows of one kind with one statement.
// Rows deferred inside a savepoint are kept or discarded with it (pg::SavepointHooks). Outside
// Pool::transact the row is written at once.
//
// What the statement returns: without `on_returned`, the rows it could not write, and any row
// returned fails the transaction (an invariant: the caller holds those rows locked); with it,
// each returned row is handed to `on_returned` (still before the commit: it may register
// after_commit hooks).
#pragma once

#include <pqxx/pqxx>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store {

// The order every transaction takes the store's row locks in, and so the order deferred writes
// are written in (a create holds an organization's balance, then reserves its spend): two
// transactions then never wait for each other's rows. Events come first: their insert takes the
// organization row FOR KEY SHARE, and the webhook messages for them need a later statement
// (events.cc).
enum class LockOrder {
  resource_rows = 0,    // a resource's own row (its status): locked by the transaction already
  transition_logs = 1,  // no row lock beyond those the transaction holds already
  events = 2,           // the organization row FOR KEY SHARE
  event_messages = 3,   // reads the endpoints after that lock
  deliveries = 4,       // webhook deliveries: their endpoints are locked FOR SHARE already
  messages = 5,         // outbox rows: no row lock
  balances = 6,
  spend_counters = 7,
  consumed_marks = 8,
  notifications = 9,  // pg_notify: no row lock, the notice is sent at the commit
};

using DeferredRow = pg::ArrayRow;
using ReturnedRowHandler = void (*)(const pqxx::row& row);
void defer_row(pqxx::work& tx, const pg::Statement& statement, LockOrder order, DeferredRow row,
               ReturnedRowHandler on_returned = nullptr);
// Writes every deferred row now, in LockOrder.
void flush_deferred(pqxx::work& tx);
// flush_deferred() as a guarded step (pg::guarded).
model::Status flush_guarded(pqxx::work& tx);
// Whether a row deferred for `statement` and not written yet (in this transaction or one of its
// savepoints) matches `match`: what a later write of the same kind must know before the commit.
bool any_deferred(const pqxx::work& tx, const pg::Statement& statement,
                  const std::function<bool(const DeferredRow&)>& match);
// Writes the rows deferred for `statement` alone, now: before a statement that must see them (a
// second read of a row whose change is deferred). Like flush_deferred(), only the innermost
// frame's rows: an enclosing frame's are never written inside a savepoint that may roll back.
void flush_deferred(pqxx::work& tx, const pg::Statement& statement);

// flush_deferred() just before taking a contended row lock (an organization's balance), so that
// the lock is held for the fewest statements before the commit. In a transaction that writes a
// group of requests (GroupedWrites, which calls mark_grouped) the lock is held to the group's
// commit anyway: the rows then wait for the commit and are written once for the whole group.
void flush_deferred_early(pqxx::work& tx);
void mark_grouped(pqxx::work& tx);
// Whether `tx` is the first pass of a group (mark_grouped, not inside a savepoint): a write that
// can be refused (a hold, a spend reservation) may then be deferred too. If the group's rows do
// not fit together, the flush fails, and GroupedWrites applies each request again in a savepoint
// of its own, where grouped() is false and the write refuses the one request that does not fit.
bool grouped(const pqxx::work& tx);

}  // namespace payrail::infra::store
