#include "infra/pg/pool.h"

#include "infra/log/log.h"
#include "infra/metrics/metrics.h"

namespace payrail::infra::pg {

using model::Error;
using model::ErrorCode;

namespace {

// One frame per transaction attempt in progress on this thread, innermost last.
thread_local std::vector<std::vector<std::function<void()>>> t_commit_hooks;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void after_commit(std::function<void()> hook) {
  if (t_commit_hooks.empty()) {
    hook();
    return;
  }
  t_commit_hooks.back().push_back(std::move(hook));
}

CommitHooks::CommitHooks() {
  t_commit_hooks.emplace_back();
}

CommitHooks::~CommitHooks() {
  t_commit_hooks.pop_back();
}

void CommitHooks::run() {
  auto hooks = std::move(t_commit_hooks.back());
  t_commit_hooks.back().clear();
  for (auto& hook : hooks) {
    // The transaction is committed: a failing hook must never make it look failed (and retried).
    try {
      hook();
    } catch (const std::exception& failure) {
      log::error("postgres.commit_hook_failed", {{"error", failure.what()}});
    }
  }
}

Pool::Pool(PoolOptions options)
    : options_(std::move(options)),
      metrics_(&metrics::pool_metrics(options_.application_name, options_.max_connections)) {}

model::Result<std::unique_ptr<pqxx::connection>> Pool::open_connection() const {
  try {
    auto connection = std::make_unique<pqxx::connection>(options_.url);
    pqxx::nontransaction setup(*connection);
    setup.exec("SET statement_timeout = " + std::to_string(options_.statement_timeout.count()));
    setup.exec("SET application_name = " + setup.quote(options_.application_name));
    setup.exec("SET TIME ZONE 'UTC'");
    return connection;
  } catch (const std::exception& failure) {
    log::warn("postgres.connect_failed", {{"error", failure.what()}});
    return Error::make(ErrorCode::service_unavailable, "The database is unavailable.");
  }
}

model::Result<std::unique_ptr<pqxx::connection>> Pool::acquire() {
  const auto started = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  const auto deadline = started + options_.acquire_timeout;
  while (idle_.empty() && open_count_ >= options_.max_connections) {
    if (available_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_count_ >= options_.max_connections) {
      metrics::record_pool_acquire(*metrics_, seconds_since(started), true);
      return Error::make(ErrorCode::service_unavailable, "The service is busy; retry shortly.");
    }
  }
  metrics::record_pool_acquire(*metrics_, seconds_since(started), false);
  if (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    publish_usage();
    return connection;
  }
  ++open_count_;
  publish_usage();
  lock.unlock();
  auto opened = open_connection();
  if (!opened.ok()) {
    lock.lock();
    --open_count_;
    publish_usage();
    available_.notify_one();
  }
  return opened;
}

void Pool::release(std::unique_ptr<pqxx::connection> connection, bool reusable) {
  std::lock_guard lock(mutex_);
  if (reusable && connection && connection->is_open()) {
    idle_.push_back(std::move(connection));
  } else {
    --open_count_;
  }
  publish_usage();
  available_.notify_one();
}

void Pool::publish_usage() {
  metrics::set_pool_connections(*metrics_, open_count_ - idle_.size(), idle_.size());
}

void Pool::count_transaction(std::string_view outcome) {
  metrics::record_transaction(*metrics_, outcome);
}

FailureKind classify_failure(const std::exception& failure) {
  if (dynamic_cast<const pqxx::in_doubt_error*>(&failure)) return FailureKind::in_doubt;
  if (dynamic_cast<const pqxx::broken_connection*>(&failure)) return FailureKind::reconnect;
  if (dynamic_cast<const pqxx::serialization_failure*>(&failure)) return FailureKind::retry;
  if (dynamic_cast<const pqxx::deadlock_detected*>(&failure)) return FailureKind::retry;
  return FailureKind::permanent;
}

Error database_error(FailureKind kind, const std::exception& failure) {
  switch (kind) {
    case FailureKind::reconnect:
      log::warn("postgres.unavailable", {{"error", failure.what()}});
      return Error::make(ErrorCode::service_unavailable, "The database is unavailable.");
    case FailureKind::in_doubt:
      log::error("postgres.commit_in_doubt", {{"error", failure.what()}});
      return Error::make(ErrorCode::internal_error, "An internal error occurred.");
    case FailureKind::retry:
      log::warn("postgres.retries_exhausted", {{"error", failure.what()}});
      return Error::make(ErrorCode::service_unavailable, "The service is busy; retry shortly.");
    case FailureKind::permanent:
      break;
  }
  log::error("postgres.error", {{"error", failure.what()}});
  return Error::make(ErrorCode::internal_error, "An internal error occurred.");
}

}  // namespace payrail::infra::pg
