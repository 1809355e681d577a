// A bounded pool of PostgreSQL connections and the one way to run a transaction.
//
// Every write in Payrail is one call to Pool::transact: the callback returns a Result; an ok
// result commits, an error result rolls back. (Pool::autocommit runs reads, and the one write that
// may run twice, without BEGIN and COMMIT.) Serialization failures and deadlocks are retried
// from the start; a connection lost before COMMIT is retried once on a fresh connection; a
// connection lost during COMMIT is reported as "in doubt" and never retried blindly.
#pragma once

#include <pqxx/pqxx>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra::metrics {
struct PoolMetrics;
}

namespace payrail::infra::pg {

// Runs `hook` once the transaction running on this thread (Pool::transact) has committed, and
// never if it rolls back or fails: for effects that must follow the truth, such as counting a
// state change in the metrics. Outside a transaction it runs at once.
void after_commit(std::function<void()> hook);

// State a layer above keeps for the life of one transaction attempt (or of one savepoint inside
// it), such as the store's writes deferred to the commit. The pool knows only its lifecycle:
// before_commit() runs just before Pool::transact commits (and may write); a savepoint's state is
// handed to the enclosing frame with keep_into() when the savepoint is kept, and discarded with
// it otherwise; a rolled back or failed attempt discards it all.
class TransactionLocal {
 public:
  virtual ~TransactionLocal() = default;
  virtual void before_commit(pqxx::work& tx) = 0;
  // Moves this savepoint's state into `parent` (the same type, in the enclosing frame).
  virtual void keep_into(TransactionLocal& parent) = 0;
};

namespace detail {
TransactionLocal* find_local(const pqxx::connection_base& connection, const void* type_key);
TransactionLocal* add_local(const pqxx::connection_base& connection, const void* type_key,
                            std::unique_ptr<TransactionLocal> local);
void search_locals(const pqxx::connection_base& connection, const void* type_key,
                   const std::function<bool(TransactionLocal&)>& each);
template <class T>
const void* type_key() {
  static const char key = 0;
  return &key;
}
}  // namespace detail

// The innermost frame's `T` of `tx`'s transaction (created on first use), or null when `tx` runs
// outside Pool::transact (nothing is kept there).
template <class T>
T* transaction_local(const pqxx::work& tx) {
  auto* found = detail::find_local(tx.conn(), detail::type_key<T>());
  if (found == nullptr) found = detail::add_local(tx.conn(), detail::type_key<T>(), std::make_unique<T>());
  return static_cast<T*>(found);
}
// Calls `each(T&)` for the `T` of each of `tx`'s frames that has one, from the innermost out (a
// savepoint's, then the enclosing ones'), until `each` returns true.
template <class T, class Each>
void search_transaction_locals(const pqxx::work& tx, Each each) {
  detail::search_locals(tx.conn(), detail::type_key<T>(),
                        [&](TransactionLocal& local) { return each(static_cast<T&>(local)); });
}

// The frame of one transaction attempt; a nested transaction has its own (Pool::transact).
class CommitHooks {
 public:
  CommitHooks();
  ~CommitHooks();  // discards hooks and state that did not run (rolled back or failed)
  CommitHooks(const CommitHooks&) = delete;
  CommitHooks& operator=(const CommitHooks&) = delete;
  void attach(const pqxx::work& tx);  // the transaction this frame is
  void before_commit(pqxx::work& tx);  // every TransactionLocal's before_commit(), in order
  void run();                          // after the commit
};

// The frame of one savepoint inside a transaction (a message of a worker's batch): keep() hands
// its hooks and state to the enclosing frame; otherwise they are discarded with the savepoint.
class SavepointHooks {
 public:
  SavepointHooks();
  ~SavepointHooks();
  SavepointHooks(const SavepointHooks&) = delete;
  SavepointHooks& operator=(const SavepointHooks&) = delete;
  void keep();

 private:
  bool kept_ = false;
};

// How PostgreSQL plans a prepared statement. Every session of a pool plans generically: a
// statement is planned once per connection, not at each execution (planning a payout's large
// batch statements anew was about a tenth of the stack's CPU at the peak: docs/design.md,
// "Generic plans"). A statement whose best plan depends on which of its parameters are NULL (a
// list's `$4 IS NULL OR (created_at, id) < cursor`, whose cursor is an index condition only once
// the planner knows $4) is declared `custom`: it is planned at each execution with its values.
enum class Plan { generic, custom };

// SQL lives as named constants next to the repository that runs it.
struct Statement {
  const char* name;
  const char* sql;
  Plan plan = Plan::generic;
};

// The session setting every pool connection starts with (Pool::open_connection), and the one a
// `custom` statement sets for the rest of its transaction.
inline constexpr const char* kGenericPlans = "plan_cache_mode = force_generic_plan";
inline constexpr const char* kCustomPlans = "plan_cache_mode = force_custom_plan";

// Runs `statement` once for `rows`, column i of every row as array parameter $i+1 (an array
// literal, cast in the SQL; a nullopt value is NULL), and returns what it returned: one execution
// for many rows.
using ArrayRow = std::vector<std::optional<std::string>>;
pqxx::result exec_rows(pqxx::work& tx, const Statement& statement, const std::vector<ArrayRow>& rows);

// Runs a named statement, preparing it on this connection the first time it is used. A `custom`
// statement first sets custom plans for the rest of the transaction (one more round trip; only
// list reads are declared so).
template <class Transaction, class... Args>
pqxx::result exec(Transaction& tx, const Statement& statement, Args&&... args) {
  if (statement.plan == Plan::custom) tx.exec0(std::string("SET LOCAL ") + kCustomPlans);
  tx.conn().prepare(statement.name, statement.sql);
  return tx.exec_prepared(statement.name, std::forward<Args>(args)...);
}

struct PoolOptions {
  std::string url;
  std::size_t max_connections = 8;
  std::chrono::milliseconds acquire_timeout{2000};
  std::chrono::milliseconds statement_timeout{15000};
  std::string application_name = "payrail";
  // Planner settings for every session of the pool ("enable_bitmapscan = off"), for a pool whose
  // statements must keep one plan whatever the table's statistics say (webhooks' delivery pool).
  std::vector<std::string> planner_settings;
  // When a session plans its statements again (DISCARD PLANS, at the acquire that finds it due):
  // replan_interval after it opened, then after twice as long each time, up to
  // replan_interval_max. A generic plan is made for the size its tables had when the statement
  // first ran, and kept until an ANALYZE of one of them: on a new database, sequential scans of
  // tables that then grow by a thousand rows a second, for a minute or more (docs/design.md,
  // "Plans made on an empty database"). Doubling replans often while the tables are young and
  // growing fastest for their size, and seldom once they are old. Zero: never.
  std::chrono::milliseconds replan_interval{1000};
  std::chrono::milliseconds replan_interval_max{600000};
};

class Pool {
 public:
  explicit Pool(PoolOptions options);
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  template <class Work>
  auto transact(Work&& work) -> decltype(work(std::declval<pqxx::work&>()));

  // Runs `work` without BEGIN and COMMIT (pqxx::nontransaction): each statement commits on its
  // own, two round trips fewer than a transaction. Only for reads and single-statement writes;
  // nothing is deferred, and commit hooks run at once. A connection lost during the work may
  // have lost it after a statement committed: with Rerun::after_lost_connection (reads, and a
  // write that may run twice) the work runs again on a fresh connection; with Rerun::never it
  // is reported as in doubt, like a connection lost during COMMIT. Deadlocks and serialization
  // failures, which roll the statement back, are retried either way.
  enum class Rerun { after_lost_connection, never };
  template <class Work>
  auto autocommit(Work&& work, Rerun rerun = Rerun::after_lost_connection)
      -> decltype(work(std::declval<pqxx::nontransaction&>()));

  // Opens a standalone connection with the pool's settings (for LISTEN, migrations).
  model::Result<std::unique_ptr<pqxx::connection>> open_connection() const;

  const PoolOptions& options() const { return options_; }

 private:
  model::Result<std::unique_ptr<pqxx::connection>> acquire();
  // Whether the session is due to plan again; if so, schedules the next time (under mutex_).
  bool replan_due(const pqxx::connection& connection);
  void discard_plans(pqxx::connection& connection);  // DISCARD PLANS, outside the mutex
  void release(std::unique_ptr<pqxx::connection> connection, bool reusable);
  void publish_usage();  // under mutex_
  void count_transaction(std::string_view outcome);

  static constexpr int kAttemptsMax = 4;

  PoolOptions options_;
  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_;
  // When each open session plans again next, and the interval that led there.
  struct Replan {
    std::chrono::steady_clock::time_point due;
    std::chrono::milliseconds interval;
  };
  std::unordered_map<const pqxx::connection*, Replan> replans_;
  std::size_t open_count_ = 0;
  metrics::PoolMetrics* metrics_;
};

// Classification of a libpqxx failure at the adapter edge.
enum class FailureKind { retry, reconnect, in_doubt, permanent };
FailureKind classify_failure(const std::exception& failure);
model::Error database_error(FailureKind kind, const std::exception& failure);
// The first line of a failure's text, for logs and failure records: PostgreSQL's DETAIL lines can
// quote a row's values (a beneficiary's name, an address), which must not reach either.
std::string failure_summary(const std::exception& failure);

// Runs one step of a batch (a worker's message, one request of a group). A lost connection, a
// serialization failure or a deadlock is the database's, not the step's: it is rethrown, and the
// whole transaction is retried (Pool::transact). Any other failure is the step's own error.
template <class Step>
model::Status guarded(Step&& step) {
  try {
    return step();
  } catch (const std::exception& failure) {
    if (classify_failure(failure) != FailureKind::permanent) throw;
    return model::Error::make(model::ErrorCode::internal_error, failure_summary(failure));
  }
}

template <class Work>
auto Pool::transact(Work&& work) -> decltype(work(std::declval<pqxx::work&>())) {
  using ResultType = decltype(work(std::declval<pqxx::work&>()));
  for (int attempt = 1;; ++attempt) {
    auto connection = acquire();
    if (!connection.ok()) return connection.error();
    auto owned = std::move(connection.value());
    FailureKind kind = FailureKind::permanent;
    CommitHooks hooks;
    try {
      std::optional<ResultType> result;
      {
        pqxx::work tx(*owned);
        hooks.attach(tx);
        result.emplace(work(tx));
        if (result->ok()) {
          hooks.before_commit(tx);
          tx.commit();
        }
      }
      release(std::move(owned), true);
      count_transaction(result->ok() ? "committed" : "rolled_back");
      if (result->ok()) hooks.run();
      return std::move(*result);
    } catch (const std::exception& failure) {
      kind = classify_failure(failure);
      release(std::move(owned), kind == FailureKind::retry);
      count_transaction("failed");
      const bool retryable = kind == FailureKind::retry || kind == FailureKind::reconnect;
      if (!retryable || attempt >= kAttemptsMax) return database_error(kind, failure);
    }
  }
}

template <class Work>
auto Pool::autocommit(Work&& work, Rerun rerun)
    -> decltype(work(std::declval<pqxx::nontransaction&>())) {
  for (int attempt = 1;; ++attempt) {
    auto connection = acquire();
    if (!connection.ok()) return connection.error();
    auto owned = std::move(connection.value());
    try {
      auto result = [&] {
        pqxx::nontransaction statements(*owned);
        return work(statements);
      }();
      release(std::move(owned), true);
      count_transaction(result.ok() ? "committed" : "rolled_back");
      return result;
    } catch (const std::exception& failure) {
      auto kind = classify_failure(failure);
      if (kind == FailureKind::reconnect && rerun == Rerun::never) kind = FailureKind::in_doubt;
      release(std::move(owned), kind == FailureKind::retry);
      count_transaction("failed");
      const bool retryable = kind == FailureKind::retry || kind == FailureKind::reconnect;
      if (!retryable || attempt >= kAttemptsMax) return database_error(kind, failure);
    }
  }
}

}  // namespace payrail::infra::pg
