// The scaffolding every Kafka worker role shares: configuration, the Postgres pool, the outbox
// relay (woken after each applied message), and one consumer-group member for the role's topics
// (a role may apply several topics, e.g. screening applies payouts.requested and
// fiat_payouts.requested; all of them name the role's group as their consumer).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "infra/config/config.h"
#include "infra/kafka/consumer.h"
#include "infra/kafka/producer.h"
#include "infra/outbox/relay.h"
#include "infra/pg/pool.h"
#include "topics/registry.h"

namespace payrail::infra::runtime {

struct WorkerContext {
  Config config;
  pg::Pool& pool;
  outbox::Relay& relay;
};

// Handles one message; PROCESSING MUST BE IDEMPOTENT (see infra/kafka/consumer.h).
using WorkerHandler = std::function<kafka::HandlerOutcome(WorkerContext&, const topics::Envelope&)>;

struct TopicHandler {
  const topics::TopicSpec* topic;
  WorkerHandler handler;
};

// Runs until SIGINT/SIGTERM, dispatching each message to the handler of its type. `on_start`
// runs once before consuming (load data, start threads); `on_stop` runs after consuming stopped,
// while the pool still exists. Every topic must name the same consumer group.
int run_worker(std::string_view process_name, const std::vector<TopicHandler>& topic_handlers,
               const std::function<void(WorkerContext&)>& on_start = {},
               const std::function<void()>& on_stop = {});

// One topic.
int run_worker(std::string_view process_name, const topics::TopicSpec& topic,
               const WorkerHandler& handler,
               const std::function<void(WorkerContext&)>& on_start = {},
               const std::function<void()>& on_stop = {});

// Maps a failed transaction to the consumer's answer: apply the same message again later.
kafka::HandlerOutcome retry_after(const model::Error& error, std::string_view message_id);

}  // namespace payrail::infra::runtime
