#include "infra/store/creates/grouped_writes.h"

#include <algorithm>
#include <map>

#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/store/sql/deferred_writes.h"
#include "infra/store/sql/row_locks.h"

namespace payrail::infra::store {
namespace {

void set_all(std::vector<GroupedWrites::Request*>& group, const model::Status& status) {
  for (auto* request : group) request->status = status;
}

std::string ahead_key(const pg::Statement& statement, const std::string& key) {
  return std::string("ahead\x1f") + statement.name + '\x1f' + key;
}

// Each statement the group's requests read ahead, once for all of them (in group order); each
// returned row is kept for the request its first column names.
void read_ahead(pqxx::work& tx, const std::vector<GroupedWrites::Request*>& group) {
  std::map<const pg::Statement*, std::vector<DeferredRow>> rows;
  for (const auto* request : group) {
    if (request->ahead) rows[request->ahead->statement].push_back(request->ahead->row);
  }
  for (const auto& [statement, statement_rows] : rows) {
    const auto returned = pg::exec_rows(tx, *statement, statement_rows);
    const auto key = returned.column_number(kAheadKeyColumn);
    for (const auto& row : returned) {
      keep_locked_row(tx, ahead_key(*statement, row[key].as<std::string>()), row);
    }
  }
}

// One request's step in the savepoint pass. A failure of its own becomes the error a request
// written alone gets (logged; the caller's answer names no database detail); the database's
// failure is rethrown, and the whole group is retried (pg::Pool::transact).
template <class Step>
model::Status own_failure_as_error(Step&& step) {
  try {
    return step();
  } catch (const std::exception& failure) {
    const auto kind = pg::classify_failure(failure);
    if (kind != pg::FailureKind::permanent) throw;
    return pg::database_error(kind, failure);
  }
}

// Every request in its own savepoint, with its deferred rows written inside it: a refused or
// failing request is rolled back alone. Sets each request's status (which holds once the
// transaction commits).
model::Status write_isolated(pqxx::work& tx, std::vector<GroupedWrites::Request*>& group) {
  for (auto* request : group) {
    tx.exec0("SAVEPOINT request");
    std::optional<pg::SavepointHooks> hooks(std::in_place);
    auto status = own_failure_as_error([&] { return request->apply(tx); });
    if (status.ok()) {
      status = own_failure_as_error([&] {
        flush_deferred(tx);
        return model::ok_status();
      });
    }
    request->status = status;
    if (status.ok()) {
      tx.exec0("RELEASE SAVEPOINT request");
      hooks->keep();
      continue;
    }
    hooks.reset();  // its hooks and deferred rows go with the savepoint
    tx.exec0("ROLLBACK TO SAVEPOINT request");
  }
  return model::ok_status();
}

}  // namespace

GroupedWrites::GroupedWrites(pg::Pool& pool, GroupOptions options) : pool_(pool), options_(options) {
  options_.max_requests = std::max<std::size_t>(1, options_.max_requests);
  options_.max_groups = std::max<std::size_t>(1, options_.max_groups);
}

model::Status GroupedWrites::write(Request& request) {
  std::unique_lock lock(mutex_);
  waiting_.push_back(&request);
  // The caller waits for its request to be written, and writes the waiting group itself whenever
  // a group may start: the first request of an idle system is written at once and alone.
  while (!request.done) {
    const auto now = Clock::now();
    if (!waiting_.empty() && may_start_group(now)) {
      auto group = take_group();
      const auto since = writing_since_.insert(now);
      lock.unlock();
      write_group(group);
      lock.lock();
      writing_since_.erase(since);
      for (auto* written : group) written->done = true;
      changed_.notify_all();
    } else if (!waiting_.empty() && writing_since_.size() < options_.max_groups) {
      // A slot is free, but the youngest group is not stalled yet: wait until it would be.
      changed_.wait_until(lock, *writing_since_.rbegin() + options_.stalled_after);
    } else {
      changed_.wait(lock);
    }
  }
  return request.status;
}

// A slot is free, and no group being written is younger than stalled_after.
bool GroupedWrites::may_start_group(Clock::time_point now) const {
  if (writing_since_.empty()) return true;
  if (writing_since_.size() >= options_.max_groups) return false;
  return now - *writing_since_.rbegin() >= options_.stalled_after;
}

std::size_t GroupedWrites::waiting() {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

std::vector<GroupedWrites::Request*> GroupedWrites::take_group() {
  const auto count = std::min(options_.max_requests, waiting_.size());
  std::vector<Request*> group(waiting_.begin(), waiting_.begin() + static_cast<long>(count));
  waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<long>(count));
  return group;
}

void GroupedWrites::write_group(std::vector<Request*>& group) {
  // A request's status must be set whatever happens, or its caller would wait forever.
  try {
    std::stable_sort(group.begin(), group.end(),
                     [](const Request* a, const Request* b) { return a->lock_key < b->lock_key; });
    if (group.size() == 1) {
      auto* request = group.front();
      request->status = pool_.transact([&](pqxx::work& tx) { return request->apply(tx); });
      metrics::record_write_group(pool_.options().application_name, 1, "alone");
      return;
    }
    write_fast_or_isolated(group);
  } catch (const std::exception& failure) {
    log::error("postgres.group_failed", {{"error", pg::failure_summary(failure)}});
    set_all(group,
            model::Error::make(model::ErrorCode::internal_error, "An internal error occurred."));
  }
}

void GroupedWrites::write_fast_or_isolated(std::vector<Request*>& group) {
  bool refused = false;
  const auto fast = pool_.transact([&](pqxx::work& tx) -> model::Status {
    refused = false;
    mark_grouped(tx);
    if (auto ahead = pg::guarded([&] {
          read_ahead(tx, group);
          return model::ok_status();
        });
        !ahead.ok()) {
      refused = true;
      return ahead;
    }
    for (auto* request : group) {
      auto status = pg::guarded([&] { return request->apply(tx); });
      if (!status.ok()) {
        refused = true;
        return status;
      }
    }
    // The group's deferred rows together; if they fail, one request's row is the cause, and the
    // savepoint pass finds which.
    auto flushed = flush_guarded(tx);
    refused = !flushed.ok();
    return flushed;
  });
  const auto& pool_name = pool_.options().application_name;
  if (fast.ok() || !refused) {
    set_all(group, fast);
    metrics::record_write_group(pool_name, group.size(), "together");
    return;
  }
  const auto isolated = pool_.transact([&](pqxx::work& tx) { return write_isolated(tx, group); });
  if (!isolated.ok()) set_all(group, isolated);
  metrics::record_write_group(pool_name, group.size(), "isolated");
}

std::optional<pqxx::row> take_ahead(pqxx::work& tx, const pg::Statement& statement,
                                    const std::string& key) {
  return take_locked_row(tx, ahead_key(statement, key));
}

}  // namespace payrail::infra::store
