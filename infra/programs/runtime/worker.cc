#include "infra/programs/runtime/worker.h"

#include <algorithm>
#include <map>
#include <set>

#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/programs/runtime/process.h"
#include "infra/store/outbox/message_failures.h"
#include "infra/store/sql/deferred_writes.h"

namespace payrail::infra::runtime {
namespace {

namespace message_failures = store::message_failures;
using kafka::HandlerOutcome;

// What became of one message in the batch's transaction.
enum class Verdict {
  skipped,      // not active, or not reached
  applied,      // committed with the batch
  unavailable,  // a dependency is unavailable: retried, not counted
  failed,       // its own failure, counted: retried
  parked,       // its own failure, counted, attempts exhausted: parked
  held_back,    // an earlier message of its partition failed: retried with it
};

struct Attempt {
  std::vector<Verdict> verdicts;
  std::vector<std::string> errors;
  bool failed = false;  // some message failed (the fast attempt then rolls back)
};

using store::flush_guarded;
using pg::guarded;

std::pair<std::string, int32_t> partition_of(const kafka::Delivery& delivery) {
  return {delivery.topic, delivery.partition};
}

// One pass over the active messages. Without savepoints (the fast path) the first failure stops
// the pass and the transaction is rolled back; with them, each failure is rolled back alone and
// counted.
Attempt apply_pass(WorkerContext& context, pqxx::work& tx, const Batch& batch,
                   const std::vector<kafka::Delivery>& deliveries, const ApplyOne& apply,
                   const std::function<bool(std::size_t)>& include, bool savepoints) {
  Attempt attempt{std::vector<Verdict>(batch.size(), Verdict::skipped),
                  std::vector<std::string>(batch.size())};
  std::set<std::pair<std::string, int32_t>> held;
  const auto in_pass = [&](std::size_t i) { return batch.active(i) && (!include || include(i)); };
  if (batch.prefetch() != nullptr) {
    std::vector<const topics::Envelope*> messages;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (in_pass(i)) messages.push_back(&batch.message(i));
    }
    batch.prefetch()(tx, messages);
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!in_pass(i)) continue;
    if (held.count(partition_of(deliveries[i])) > 0) {
      attempt.verdicts[i] = Verdict::held_back;
      continue;
    }
    if (savepoints) tx.exec0("SAVEPOINT message");
    std::optional<pg::SavepointHooks> hooks;
    if (savepoints) hooks.emplace();
    auto status = guarded([&] { return apply(tx, i); });
    // With savepoints each message's deferred writes go inside its own savepoint, so a failing
    // one is isolated with its message.
    if (status.ok() && savepoints) status = flush_guarded(tx);
    if (status.ok()) {
      if (savepoints) tx.exec0("RELEASE SAVEPOINT message");
      if (hooks) hooks->keep();
      attempt.verdicts[i] = Verdict::applied;
      continue;
    }
    attempt.failed = true;
    attempt.errors[i] = status.error().message;
    if (!savepoints) return attempt;
    hooks.reset();
    tx.exec0("ROLLBACK TO SAVEPOINT message");
    if (is_dependency_unavailable(status.error())) {
      attempt.verdicts[i] = Verdict::unavailable;
    } else {
      const auto& message = batch.message(i);
      const auto counted = message_failures::record(
          tx,
          {message.message_id, context.consumer_group, std::string(batch.topic().name),
           message.resource_id, status.error().message},
          context.config.message_attempts_max);
      attempt.verdicts[i] = counted.parked ? Verdict::parked : Verdict::failed;
    }
    if (attempt.verdicts[i] != Verdict::parked) held.insert(partition_of(deliveries[i]));
  }
  // Without savepoints the batch's deferred writes go together; if they fail, the pass failed
  // and the batch is applied again with savepoints, which finds the message responsible.
  if (!savepoints && !flush_guarded(tx).ok()) attempt.failed = true;
  return attempt;
}

void report(WorkerContext& context, Batch& batch, const Attempt& attempt,
            const std::vector<kafka::Delivery>& deliveries) {
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto& id = batch.message(i).message_id;
    const auto& error = attempt.errors[i];
    switch (attempt.verdicts[i]) {
      case Verdict::skipped:
      case Verdict::applied:
        break;
      case Verdict::unavailable:
        log::warn("worker.retry", {{"message_id", id}, {"error", error}});
        batch.retry(i);
        break;
      case Verdict::failed:
        log::warn("worker.message_failed", {{"message_id", id}, {"error", error}});
        metrics::record_message_failure(deliveries[i].topic, context.consumer_group, false);
        batch.retry(i);
        break;
      case Verdict::parked:
        log::error("worker.message_parked", {{"message_id", id}, {"error", error}});
        metrics::record_message_failure(deliveries[i].topic, context.consumer_group, true);
        batch.park(i);
        break;
      case Verdict::held_back:
        batch.retry(i);
        break;
    }
  }
}

}  // namespace

Batch::Batch(const topics::TopicSpec& topic, std::vector<kafka::Delivery> deliveries,
             Prefetch prefetch)
    : topic_(topic),
      deliveries_(std::move(deliveries)),
      state_(deliveries_.size(), State::active),
      prefetch_(prefetch) {
  // A message delivered twice in one batch (published again before the relay recorded its first
  // publication) is applied once: consumed marks are written at the commit, so the second copy
  // would not see the first's. It is done with the first (and retried with it: same partition).
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < deliveries_.size(); ++i) {
    if (!seen.insert(deliveries_[i].envelope.message_id).second) state_[i] = State::finished;
  }
}

bool Batch::any_active() const {
  for (const auto state : state_) {
    if (state == State::active) return true;
  }
  return false;
}

void Batch::finish(std::size_t index) {
  if (state_[index] == State::active) state_[index] = State::finished;
}

void Batch::retry(std::size_t index) {
  state_[index] = State::retried;
  for (std::size_t later = index + 1; later < state_.size(); ++later) {
    if (partition_of(deliveries_[later]) == partition_of(deliveries_[index])) {
      state_[later] = State::retried;
    }
  }
}

std::vector<HandlerOutcome> Batch::outcomes() const {
  std::vector<HandlerOutcome> outcomes;
  for (const auto state : state_) {
    outcomes.push_back(state == State::retried ? HandlerOutcome::retry : HandlerOutcome::done);
  }
  return outcomes;
}

const std::vector<kafka::Delivery>& Batch::deliveries() const {
  return deliveries_;
}

model::Status apply_each(WorkerContext& context, Batch& batch, const ApplyOne& apply,
                         const std::function<bool(std::size_t)>& include) {
  if (!batch.any_active()) return model::ok_status();
  const auto& deliveries = batch.deliveries();
  // Fast path: the batch in one transaction without savepoints (two round trips fewer per
  // message). Only when a message fails is the batch applied again with one savepoint each.
  for (const bool savepoints : {false, true}) {
    Attempt attempt;
    auto committed = context.pool.transact([&](pqxx::work& tx) -> model::Status {
      attempt = apply_pass(context, tx, batch, deliveries, apply, include, savepoints);
      if (attempt.failed && !savepoints) {
        return model::Error::make(model::ErrorCode::internal_error, "isolating a failure");
      }
      return model::ok_status();
    });
    if (!savepoints && !committed.ok() && attempt.failed) continue;
    if (!committed.ok()) {
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (batch.active(i) && (!include || include(i))) batch.retry(i);
      }
      log::warn("worker.batch_failed",
                {{"error", committed.error().message}, {"messages", std::to_string(batch.size())}});
      return committed.error();
    }
    report(context, batch, attempt, deliveries);
    return model::ok_status();
  }
  return model::ok_status();
}

BatchHandler each_message(
    std::function<model::Status(WorkerContext&, pqxx::work&, const topics::Envelope&)> apply) {
  return [apply = std::move(apply)](WorkerContext& context, Batch& batch) {
    (void)apply_each(context, batch, [&](pqxx::work& tx, std::size_t index) {
      return apply(context, tx, batch.message(index));
    });
  };
}

bool is_dependency_unavailable(const model::Error& error) {
  return error.code == model::ErrorCode::service_unavailable ||
         error.code == model::ErrorCode::sanctions_unavailable ||
         error.code == model::ErrorCode::provider_unavailable;
}

namespace {

// Splits the consumer's batch by topic (order within each partition kept), runs each topic's
// handler, and returns the outcomes in the consumer's order. A type no topic of this role
// carries cannot be applied here: it is logged and passed over rather than blocking its
// partition.
std::vector<HandlerOutcome> dispatch(const std::vector<TopicHandler>& topic_handlers,
                                     WorkerContext& context,
                                     const std::vector<kafka::Delivery>& deliveries) {
  std::vector<HandlerOutcome> outcomes(deliveries.size(), HandlerOutcome::done);
  for (const auto& entry : topic_handlers) {
    std::vector<kafka::Delivery> mine;
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < deliveries.size(); ++i) {
      if (deliveries[i].envelope.type != entry.topic->message_type) continue;
      mine.push_back(deliveries[i]);
      positions.push_back(i);
    }
    if (mine.empty()) continue;
    Batch batch(*entry.topic, std::move(mine), entry.prefetch);
    entry.handler(context, batch);
    const auto applied = batch.outcomes();
    for (std::size_t j = 0; j < positions.size(); ++j) outcomes[positions[j]] = applied[j];
  }
  for (const auto& delivery : deliveries) {
    bool known = false;
    for (const auto& entry : topic_handlers)
      known |= entry.topic->message_type == delivery.envelope.type;
    if (!known) {
      log::error("worker.unknown_message_type",
                 {{"message_id", delivery.envelope.message_id}, {"type", delivery.envelope.type}});
    }
  }
  return outcomes;
}

// Whether an API request waits for one of the role's topics (TopicSpec::request_waits).
bool a_request_waits(const std::vector<TopicHandler>& topic_handlers) {
  return std::any_of(topic_handlers.begin(), topic_handlers.end(),
                     [](const TopicHandler& entry) { return entry.topic->request_waits; });
}

}  // namespace

int consumer_fetch_wait_ms(const Config& config, const std::vector<TopicHandler>& topic_handlers) {
  if (config.kafka_fetch_wait_ms) return *config.kafka_fetch_wait_ms;
  return a_request_waits(topic_handlers) ? topics::kAnswerFetchWaitMs : topics::kFetchWaitMs;
}

int consumer_batch_wait_ms(const Config& config, const std::vector<TopicHandler>& topic_handlers) {
  if (!a_request_waits(topic_handlers)) return config.worker_batch_wait_ms;
  return std::min(config.worker_batch_wait_ms, topics::kAnswerBatchWaitMs);
}

int run_worker(std::string_view process_name, const std::vector<TopicHandler>& topic_handlers,
               const std::function<void(WorkerContext&)>& on_start,
               const std::function<void()>& on_stop) {
  auto config = start_process(process_name);
  if (topic_handlers.empty()) return 1;
  const auto group = topic_handlers.front().topic->consumer_group;
  std::vector<std::string> broker_topics;
  for (const auto& entry : topic_handlers) {
    if (entry.topic->consumer_group != group) {
      log::error("worker.start_failed", {{"error", "topics of one role must share its group"}});
      return 1;
    }
    broker_topics.push_back(topics::broker_topic_name(*entry.topic, config.topic_prefix));
  }
  pg::Pool pool({.url = config.database_url,
                 .max_connections = 4,
                 .application_name = std::string(process_name)});
  auto producer = kafka::Producer::create(
      {.brokers = config.kafka_brokers, .client_id = std::string(process_name)});
  if (!producer.ok()) {
    log::error("worker.start_failed", {{"error", producer.error().message}});
    return 1;
  }
  store::outbox::Relay relay(
      pool, **producer,
      {.topic_prefix = config.topic_prefix,
       .poll_interval = std::chrono::milliseconds(config.outbox_poll_interval_ms),
       .redrive_after = std::chrono::milliseconds(config.outbox_redrive_after_ms)});
  WorkerContext context{config, pool, relay, std::string(group)};
  if (on_start) on_start(context);
  relay.start();
  std::atomic<bool> stop{false};
  stop_on_signal(stop);
  kafka::ConsumerRunner consumer({.brokers = config.kafka_brokers,
                                  .group_id = std::string(group),
                                  .topics = broker_topics,
                                  .client_id = std::string(process_name),
                                  .session_timeout_ms = config.kafka_session_timeout_ms,
                                  .batch_max = static_cast<std::size_t>(config.worker_batch_max),
                                  .batch_wait_ms = consumer_batch_wait_ms(config, topic_handlers),
                                  .fetch_wait_ms = consumer_fetch_wait_ms(config, topic_handlers),
                                  .debug = config.kafka_debug},
                                 [&](const std::vector<kafka::Delivery>& deliveries) {
                                   auto outcomes = dispatch(topic_handlers, context, deliveries);
                                   relay.wake();
                                   return outcomes;
                                 });
  const auto status = consumer.run(stop);
  if (on_stop) on_stop();
  relay.stop();
  if (!status.ok()) {
    log::error("worker.failed", {{"error", status.error().message}});
    return 1;
  }
  return 0;
}

}  // namespace payrail::infra::runtime
