#include "infra/plumbing/pg/pool.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>

#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/plumbing/pg/sql_array.h"

namespace payrail::infra::pg {

using model::Error;
using model::ErrorCode;

namespace {

// A database that vanishes without closing its sockets (a crashed host, a network partition)
// would leave libpq waiting forever: connect within 5 s, and let TCP give up on a peer that
// stops acknowledging (30 s) or answering keepalives (10 s idle + 3 x 5 s). Settings already in
// the URL win.
std::string with_network_timeouts(std::string url) {
  constexpr std::pair<const char*, const char*> kDefaults[] = {
      {"connect_timeout", "5"},     {"keepalives", "1"},       {"keepalives_idle", "10"},
      {"keepalives_interval", "5"}, {"keepalives_count", "3"}, {"tcp_user_timeout", "30000"}};
  const bool uri = url.starts_with("postgresql://") || url.starts_with("postgres://");
  for (const auto& [name, value] : kDefaults) {
    if (url.find(std::string(name) + "=") != std::string::npos) continue;
    if (uri) {
      url += (url.find('?') == std::string::npos ? "?" : "&") + std::string(name) + "=" + value;
    } else {
      url += " " + std::string(name) + "=" + value;
    }
  }
  return url;
}

// One transaction attempt (or one savepoint inside it): hooks to run after its commit, and the
// state layers above keep for it (TransactionLocal), by type. One frame per attempt in progress on
// this thread, innermost last.
struct Frame {
  const pqxx::connection_base* connection = nullptr;  // the transaction's; a savepoint's parent's
  std::vector<std::function<void()>> hooks;
  std::vector<std::pair<const void*, std::unique_ptr<TransactionLocal>>> locals;
};

thread_local std::vector<Frame> t_frames;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The innermost frame of `connection`'s transaction, or null when it runs outside
// Pool::transact.
Frame* frame_of(const pqxx::connection_base& connection) {
  if (t_frames.empty() || t_frames.back().connection != &connection) return nullptr;
  return &t_frames.back();
}

TransactionLocal* local_in(Frame& frame, const void* type_key) {
  for (auto& [key, local] : frame.locals) {
    if (key == type_key) return local.get();
  }
  return nullptr;
}

}  // namespace

// One execution for all the rows: column i of every row becomes array parameter $i+1.
pqxx::result exec_rows(pqxx::work& tx, const Statement& statement,
                       const std::vector<ArrayRow>& rows) {
  const auto width = rows.empty() ? 0 : rows.front().size();
  std::vector<std::string> arrays;
  for (std::size_t column = 0; column < width; ++column) {
    std::vector<std::optional<std::string>> values;
    for (const auto& row : rows) {
      if (row.size() != width) {
        throw std::logic_error(std::string("rows of different widths for ") + statement.name);
      }
      values.push_back(row[column]);
    }
    arrays.push_back(sql_array(values));
  }
  tx.conn().prepare(statement.name, statement.sql);
  return tx.exec_prepared(statement.name, pqxx::prepare::make_dynamic_params(arrays));
}

void after_commit(std::function<void()> hook) {
  if (t_frames.empty()) {
    hook();
    return;
  }
  t_frames.back().hooks.push_back(std::move(hook));
}

namespace detail {

TransactionLocal* find_local(const pqxx::connection_base& connection, const void* type_key) {
  auto* frame = frame_of(connection);
  return frame ? local_in(*frame, type_key) : nullptr;
}

TransactionLocal* add_local(const pqxx::connection_base& connection, const void* type_key,
                            std::unique_ptr<TransactionLocal> local) {
  auto* frame = frame_of(connection);
  if (frame == nullptr) return nullptr;
  return frame->locals.emplace_back(type_key, std::move(local)).second.get();
}

void search_locals(const pqxx::connection_base& connection, const void* type_key,
                   const std::function<bool(TransactionLocal&)>& each) {
  // The savepoints' frames first, then the transaction's (the same connection).
  for (auto frame = t_frames.rbegin(); frame != t_frames.rend(); ++frame) {
    if (frame->connection != &connection) return;
    if (auto* local = local_in(*frame, type_key); local != nullptr && each(*local)) return;
  }
}

}  // namespace detail

CommitHooks::CommitHooks() {
  t_frames.emplace_back();
}

CommitHooks::~CommitHooks() {
  t_frames.pop_back();
}

void CommitHooks::attach(const pqxx::work& tx) {
  t_frames.back().connection = &tx.conn();
}

SavepointHooks::SavepointHooks() {
  const pqxx::connection_base* connection = t_frames.empty() ? nullptr : t_frames.back().connection;
  t_frames.emplace_back();
  t_frames.back().connection = connection;
}

SavepointHooks::~SavepointHooks() {
  auto frame = std::move(t_frames.back());
  t_frames.pop_back();
  if (!kept_ || t_frames.empty()) return;
  auto& parent = t_frames.back();
  for (auto& hook : frame.hooks) parent.hooks.push_back(std::move(hook));
  for (auto& [key, local] : frame.locals) {
    auto* into = local_in(parent, key);
    if (into == nullptr) {
      parent.locals.emplace_back(key, std::move(local));
    } else {
      local->keep_into(*into);
    }
  }
}

void SavepointHooks::keep() {
  kept_ = true;
}

void CommitHooks::before_commit(pqxx::work& tx) {
  // A local's before_commit may create another (a deferred write that defers more): by index.
  auto& frame = t_frames.back();
  for (std::size_t i = 0; i < frame.locals.size(); ++i) frame.locals[i].second->before_commit(tx);
}

void CommitHooks::run() {
  auto hooks = std::move(t_frames.back().hooks);
  t_frames.back().hooks.clear();
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
      metrics_(&metrics::pool_metrics(options_.application_name, options_.max_connections)) {
  options_.url = with_network_timeouts(options_.url);
}

model::Result<std::unique_ptr<pqxx::connection>> Pool::open_connection() const {
  try {
    auto connection = std::make_unique<pqxx::connection>(options_.url);
    pqxx::nontransaction setup(*connection);
    std::string settings =
        "SET statement_timeout = " + std::to_string(options_.statement_timeout.count()) +
        "; SET application_name = " + setup.quote(options_.application_name) +
        "; SET TIME ZONE 'UTC'; SET " + kGenericPlans;
    for (const auto& setting : options_.planner_settings) settings += "; SET " + setting;
    setup.exec(settings);  // one round trip
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
    const bool replan = replan_due(*connection);
    lock.unlock();
    if (replan) discard_plans(*connection);
    return connection;
  }
  ++open_count_;
  publish_usage();
  lock.unlock();
  auto opened = open_connection();
  lock.lock();
  if (opened.ok()) {
    if (options_.replan_interval.count() > 0) {
      replans_[opened->get()] = {std::chrono::steady_clock::now() + options_.replan_interval,
                                 options_.replan_interval};
    }
  } else {
    --open_count_;
    publish_usage();
    available_.notify_one();
  }
  return opened;
}

bool Pool::replan_due(const pqxx::connection& connection) {
  const auto found = replans_.find(&connection);
  const auto now = std::chrono::steady_clock::now();
  if (found == replans_.end() || now < found->second.due) return false;
  auto& replan = found->second;
  replan.interval = std::min(replan.interval * 2, options_.replan_interval_max);
  replan.due = now + replan.interval;
  return true;
}

void Pool::discard_plans(pqxx::connection& connection) {
  try {
    pqxx::nontransaction discard(connection);
    discard.exec0("DISCARD PLANS");
  } catch (const std::exception& failure) {
    // The transaction that follows finds the session broken and reconnects, as after any loss
    // of an idle connection.
    log::warn("postgres.discard_plans_failed", {{"error", failure.what()}});
  }
}

void Pool::release(std::unique_ptr<pqxx::connection> connection, bool reusable) {
  std::lock_guard lock(mutex_);
  if (reusable && connection && connection->is_open()) {
    idle_.push_back(std::move(connection));
  } else {
    replans_.erase(connection.get());
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
  // The server shutting down or crashing (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
  // cannot_connect_now) or a connection exception (class 08): a fresh connection may work.
  if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&failure)) {
    const std::string state = sql->sqlstate();
    if (state.starts_with("57P") || state.starts_with("08")) return FailureKind::reconnect;
  }
  return FailureKind::permanent;
}

std::string failure_summary(const std::exception& failure) {
  const std::string text = failure.what();
  return text.substr(0, text.find('\n'));
}

Error database_error(FailureKind kind, const std::exception& failure) {
  switch (kind) {
    case FailureKind::reconnect:
      log::warn("postgres.unavailable", {{"error", failure_summary(failure)}});
      return Error::make(ErrorCode::service_unavailable, "The database is unavailable.");
    case FailureKind::in_doubt:
      // The database went away during COMMIT: the outcome is unknown, and only a retry (with the
      // same Idempotency-Key where the operation takes one) can tell. 503 says "retry".
      log::error("postgres.commit_in_doubt", {{"error", failure_summary(failure)}});
      return Error::make(ErrorCode::service_unavailable,
                         "The database connection was lost while committing; retry (with the same "
                         "Idempotency-Key).");
    case FailureKind::retry:
      log::warn("postgres.retries_exhausted", {{"error", failure_summary(failure)}});
      return Error::make(ErrorCode::service_unavailable, "The service is busy; retry shortly.");
    case FailureKind::permanent:
      break;
  }
  log::error("postgres.error", {{"error", failure_summary(failure)}});
  return Error::make(ErrorCode::internal_error, "An internal error occurred.");
}

}  // namespace payrail::infra::pg
