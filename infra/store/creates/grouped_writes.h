// Grouped writes: requests that arrive while others are being written share one transaction.
//
// A create is a dozen short statements, and BEGIN, COMMIT and the rows deferred to the commit
// (its transition log, its event, its outbox message) are a third of them. When creates arrive
// faster than one transaction finishes, the callers waiting for a free slot are written together:
// one BEGIN, one COMMIT, one statement per deferred kind for the whole group. Nothing is waited
// for on purpose: a request that finds a slot free is written at once, alone, as before.
//
// Each request keeps its own outcome. The group first runs without savepoints (the fast pass); if
// any request is refused (an error result, such as insufficient_balance, or a failure of its own
// statement) the transaction is rolled back and the group runs again with a savepoint per
// request, so the refused one is rolled back alone and the others commit. In the fast pass the
// writes that can refuse a create (its hold, its spend reservation) are deferred to the commit
// as well (store::grouped): one statement each for the whole group instead of one per request. When
// the group's sum does not fit a balance or a limit, that flush fails and the savepoint pass
// finds which request is refused, as it would for a refusal during the fast pass. A failure of the
// database itself (lost connection, deadlock, serialization) is the group's: pg::Pool::transact
// retries the whole group, or every request gets the error.
//
// A request may also name one row of a set-based statement to read ahead (Request::ahead): the
// fast pass runs each such statement once for the whole group, before any request is applied,
// and keeps each returned row for its request (take_ahead), whose own code then runs no
// statement for it. That is how a group's creates claim their keys and insert their rows with
// one statement. A failure of the statement is treated as a refusal: the savepoint pass, which
// reads nothing ahead, finds the request it belongs to.
//
// The requests of a group are written in the order of their lock keys (their organization's
// balance), stable for equal keys, so two groups take those row locks in the same order.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/deferred_writes.h"

namespace payrail::infra::store {

// The column of a read-ahead statement's rows that names the request each row is for.
inline constexpr const char* kAheadKeyColumn = "request_id";

struct GroupOptions {
  std::size_t max_requests = 16;  // in one transaction
  std::size_t max_groups = 2;     // transactions of this kind writing at once
  // A further group starts only while every group being written has been at it this long (it is
  // stalled: waiting for a row lock, say). Until then the requests that arrive wait and make the
  // next group larger: fewer statements and commits per request, and no two groups of creates
  // taking the same organizations' balance rows at once. Zero starts a group whenever a slot is
  // free.
  std::chrono::milliseconds stalled_after{0};
};

class GroupedWrites {
 public:
  // A row of `statement` to read ahead in the fast pass. The statement returns one row per
  // request, with the key the request takes it by (take_ahead) in its column kAheadKeyColumn.
  struct Ahead {
    const pg::Statement* statement;
    DeferredRow row;
    std::string key;  // the request's key in the returned rows' kAheadKeyColumn
  };

  // One request: `apply` runs in the group's transaction (possibly more than once: a retried
  // transaction, the savepoint pass) and keeps its own outcome; an error result refuses it.
  struct Request {
    std::string lock_key;
    std::function<model::Status(pqxx::work& tx)> apply;
    std::optional<Ahead> ahead;
    model::Status status = model::ok_status();  // after the transaction ended
    bool done = false;
  };

  GroupedWrites(pg::Pool& pool, GroupOptions options);
  GroupedWrites(const GroupedWrites&) = delete;
  GroupedWrites& operator=(const GroupedWrites&) = delete;

  // Blocks until the transaction holding `request` ended, then returns request.status: ok once
  // committed, the refusal or the database's error otherwise.
  model::Status write(Request& request);

  // Runs `apply` (returning a model::Result) grouped, and returns its committed outcome.
  template <class Outcome, class Apply>
  model::Result<Outcome> write_one(std::string lock_key, Apply&& apply,
                                   std::optional<Ahead> ahead = std::nullopt);

  // Requests waiting for a group (not yet being written).
  std::size_t waiting();

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<Request*> take_group();                 // under mutex_
  bool may_start_group(Clock::time_point now) const;  // under mutex_
  void write_group(std::vector<Request*>& group);
  void write_fast_or_isolated(std::vector<Request*>& group);

  pg::Pool& pool_;
  GroupOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Request*> waiting_;
  std::multiset<Clock::time_point> writing_since_;  // when each group being written started
};

// The row the fast pass read ahead for the request whose key is `key` (GroupedWrites::Ahead), if
// this transaction read one: handed out once.
std::optional<pqxx::row> take_ahead(pqxx::work& tx, const pg::Statement& statement,
                                    const std::string& key);

template <class Outcome, class Apply>
model::Result<Outcome> GroupedWrites::write_one(std::string lock_key, Apply&& apply,
                                                std::optional<Ahead> ahead) {
  std::optional<Outcome> outcome;
  Request request{std::move(lock_key),
                  [&](pqxx::work& tx) -> model::Status {
                    auto result = apply(tx);
                    if (!result.ok()) return result.error();
                    outcome = std::move(result.value());
                    return model::ok_status();
                  },
                  std::move(ahead)};
  if (auto status = write(request); !status.ok()) return status.error();
  return std::move(*outcome);
}

}  // namespace payrail::infra::store
