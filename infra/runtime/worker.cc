#include "infra/runtime/worker.h"

#include "infra/log/log.h"
#include "infra/runtime/process.h"

namespace payrail::infra::runtime {
namespace {

// The handler of the message's type; a type no topic of this role carries cannot be applied
// here, so it is logged and passed over rather than blocking its partition.
kafka::HandlerOutcome dispatch(const std::vector<TopicHandler>& topic_handlers,
                               WorkerContext& context, const topics::Envelope& message) {
  for (const auto& entry : topic_handlers) {
    if (entry.topic->message_type == message.type) return entry.handler(context, message);
  }
  log::error("worker.unknown_message_type",
             {{"message_id", message.message_id}, {"type", message.type}});
  return kafka::HandlerOutcome::done;
}

}  // namespace

int run_worker(std::string_view process_name, const topics::TopicSpec& topic,
               const WorkerHandler& handler, const std::function<void(WorkerContext&)>& on_start,
               const std::function<void()>& on_stop) {
  return run_worker(process_name, {{&topic, handler}}, on_start, on_stop);
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
  outbox::Relay relay(pool, **producer,
                      {.topic_prefix = config.topic_prefix,
                       .poll_interval = std::chrono::milliseconds(config.outbox_poll_interval_ms),
                       .redrive_after = std::chrono::milliseconds(config.outbox_redrive_after_ms)});
  WorkerContext context{config, pool, relay};
  if (on_start) on_start(context);
  relay.start();
  std::atomic<bool> stop{false};
  stop_on_signal(stop);
  kafka::ConsumerRunner consumer({.brokers = config.kafka_brokers,
                                  .group_id = std::string(group),
                                  .topics = broker_topics,
                                  .client_id = std::string(process_name),
                                  .session_timeout_ms = config.kafka_session_timeout_ms,
                                  .debug = config.kafka_debug},
                                 [&](const topics::Envelope& message) {
                                   const auto outcome = dispatch(topic_handlers, context, message);
                                   if (outcome == kafka::HandlerOutcome::done) relay.wake();
                                   return outcome;
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

kafka::HandlerOutcome retry_after(const model::Error& error, std::string_view message_id) {
  log::warn("worker.retry", {{"message_id", std::string(message_id)}, {"error", error.message}});
  return kafka::HandlerOutcome::retry;
}

}  // namespace payrail::infra::runtime
