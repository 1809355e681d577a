#include "infra/pg/pool.h"

#include "infra/log/log.h"

namespace payrail::infra::pg {

using model::Error;
using model::ErrorCode;

Pool::Pool(PoolOptions options) : options_(std::move(options)) {}

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
  std::unique_lock lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + options_.acquire_timeout;
  while (idle_.empty() && open_count_ >= options_.max_connections) {
    if (available_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
        open_count_ >= options_.max_connections) {
      return Error::make(ErrorCode::service_unavailable, "The service is busy; retry shortly.");
    }
  }
  if (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }
  ++open_count_;
  lock.unlock();
  auto opened = open_connection();
  if (!opened.ok()) {
    lock.lock();
    --open_count_;
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
  available_.notify_one();
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
