#include "infra/plumbing/kafka/consumer.h"

#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <thread>

#include "infra/plumbing/kafka/client.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"

namespace payrail::infra::kafka {
namespace {

constexpr int kPollTimeoutMs = 100;
constexpr auto kLagRefreshInterval = std::chrono::seconds(1);
constexpr int kCommittedQueryTimeoutMs = 1000;

// Drops the positions this member stored on partitions it lost, so that librdkafka does not
// commit them when it unassigns them. A member loses its assignment when the group went on
// without it (session timeout) or the broker forgot the group (a broker that lost its data). In
// the first case another member owns the partitions already; in the second the broker's logs
// start again at offset 0, and an old position committed there skips the new messages below it.
// Forgotten, the messages since the last commit are applied again (consumers are idempotent).
void forget_positions(RdKafka::KafkaConsumer& consumer,
                      const std::vector<RdKafka::TopicPartition*>& partitions) {
  std::vector<RdKafka::TopicPartition*> forgotten;
  for (const auto* partition : partitions) {
    forgotten.push_back(RdKafka::TopicPartition::create(partition->topic(), partition->partition(),
                                                        RdKafka::Topic::OFFSET_INVALID));
  }
  if (const auto code = consumer.offsets_store(forgotten); code != RdKafka::ERR_NO_ERROR) {
    log::warn("kafka.offset_forget_failed", {{"error", RdKafka::err2str(code)}});
  }
  RdKafka::TopicPartition::destroy(forgotten);
}

// Logs assignments (operators and tests see when a member is ready), applies them and counts
// them in the metrics.
class RebalanceLogger : public RdKafka::RebalanceCb {
 public:
  RebalanceLogger(std::string group_id, std::vector<std::string> topics)
      : group_id_(std::move(group_id)), topics_(std::move(topics)) {}
  void rebalance_cb(RdKafka::KafkaConsumer* consumer, RdKafka::ErrorCode code,
                    std::vector<RdKafka::TopicPartition*>& partitions) override {
    std::map<std::string, int> owned;
    for (const auto& topic : topics_) owned[topic] = 0;
    if (code == RdKafka::ERR__ASSIGN_PARTITIONS) {
      consumer->assign(partitions);
      for (const auto* partition : partitions) ++owned[partition->topic()];
      metrics::record_rebalance(group_id_, "assigned");
      log::info("consumer.assigned",
                {{"group", group_id_}, {"partitions", std::to_string(partitions.size())}});
    } else {
      const bool lost = consumer->assignment_lost();
      if (lost) forget_positions(*consumer, partitions);
      consumer->unassign();
      metrics::record_rebalance(group_id_, "revoked");
      log::info(lost ? "consumer.assignment_lost" : "consumer.revoked", {{"group", group_id_}});
    }
    for (const auto& [topic, count] : owned) {
      metrics::set_assigned_partitions(topic, group_id_, count);
      if (count == 0) metrics::set_consumer_lag(topic, group_id_, 0);
    }
  }

 private:
  std::string group_id_;
  std::vector<std::string> topics_;
};

// Where the member stands on a partition: its position once it consumed from it, else the
// group's committed offset (asked of the broker), else nothing known.
std::vector<int64_t> positions_of(RdKafka::KafkaConsumer& consumer,
                                  std::vector<RdKafka::TopicPartition*>& assigned) {
  consumer.position(assigned);
  std::vector<int64_t> positions;
  std::vector<RdKafka::TopicPartition*> unknown;
  for (auto* partition : assigned) {
    positions.push_back(partition->offset());
    if (partition->offset() < 0) unknown.push_back(partition);
  }
  if (unknown.empty() ||
      consumer.committed(unknown, kCommittedQueryTimeoutMs) != RdKafka::ERR_NO_ERROR) {
    return positions;
  }
  for (std::size_t i = 0; i < assigned.size(); ++i) {
    if (positions[i] < 0) positions[i] = assigned[i]->offset();
  }
  return positions;
}

// payrail_consumer_lag_messages: the high watermark (as of the last fetch) minus the position,
// summed over the partitions this member owns, per topic.
void publish_lag(RdKafka::KafkaConsumer& consumer, const ConsumerOptions& options) {
  std::vector<RdKafka::TopicPartition*> assigned;
  if (consumer.assignment(assigned) != RdKafka::ERR_NO_ERROR) return;
  std::map<std::string, long> lag;
  for (const auto& topic : options.topics) lag[topic] = 0;
  const auto positions = positions_of(consumer, assigned);
  for (std::size_t i = 0; i < assigned.size(); ++i) {
    int64_t low = 0;
    int64_t high = 0;
    const auto* partition = assigned[i];
    if (consumer.get_watermark_offsets(partition->topic(), partition->partition(), &low, &high) !=
            RdKafka::ERR_NO_ERROR ||
        high < 0) {
      continue;
    }
    const auto position = positions[i] >= 0 ? positions[i] : low;
    lag[partition->topic()] += static_cast<long>(std::max<int64_t>(0, high - position));
  }
  RdKafka::TopicPartition::destroy(assigned);
  for (const auto& [topic, messages] : lag) {
    metrics::set_consumer_lag(topic, options.group_id, messages);
  }
}

// close() leaves the group and commits the stored offsets. librdkafka 2.0.2 does not return from
// it while the group coordinator cannot be reached (the broker is down), which would keep a
// stopping process alive for ever: after kCloseTimeout the member is abandoned instead. The
// broker expires it after the session timeout; offsets not committed mean messages applied again,
// which changes nothing.
constexpr auto kCloseTimeout = std::chrono::seconds(3);

// `rebalance` is the consumer's callback: it must outlive the close.
void close_within_bound(std::unique_ptr<RdKafka::KafkaConsumer> consumer,
                        std::shared_ptr<RdKafka::RebalanceCb> rebalance,
                        const std::string& group_id) {
  auto closed = std::make_shared<std::promise<void>>();
  auto finished = closed->get_future();
  std::thread([raw = consumer.release(), rebalance, closed] {
    raw->close();
    delete raw;
    closed->set_value();
  }).detach();
  if (finished.wait_for(kCloseTimeout) == std::future_status::timeout) {
    log::warn("consumer.close_timed_out",
              {{"group", group_id}, {"seconds", std::to_string(kCloseTimeout.count())}});
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

model::Result<std::unique_ptr<RdKafka::KafkaConsumer>> create_consumer(
    const ConsumerOptions& options, RdKafka::RebalanceCb& rebalance) {
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  // librdkafka 2.0.2 defaults to auto-storing offsets: every option is set explicitly.
  auto properties = connection_properties(options.brokers);
  properties.insert(
      properties.end(),
      {{"group.id", options.group_id},
       {"client.id", options.client_id},
       {"enable.auto.commit", "true"},
       {"auto.commit.interval.ms", "500"},
       {"enable.auto.offset.store", "false"},
       {"auto.offset.reset", "earliest"},
       {"session.timeout.ms", std::to_string(options.session_timeout_ms)},
       {"heartbeat.interval.ms", std::to_string(std::max(100, options.session_timeout_ms / 3))},
       {"max.poll.interval.ms", "300000"},
       {"fetch.wait.max.ms", std::to_string(options.fetch_wait_ms)},
       {"fetch.min.bytes", "1"},
       {"enable.partition.eof", "false"},
       {"allow.auto.create.topics", "false"}});

  for (const auto& [name, value] : properties) {
    if (auto status = set_property(*conf, name, value); !status.ok()) return status.error();
  }
  if (!options.debug.empty()) {
    if (auto status = set_property(*conf, "debug", options.debug); !status.ok()) {
      return status.error();
    }
  }
  std::string error_text;
  if (conf->set("rebalance_cb", &rebalance, error_text) != RdKafka::Conf::CONF_OK) {
    return model::Error::make(model::ErrorCode::service_unavailable, "Kafka: " + error_text);
  }
  std::unique_ptr<RdKafka::KafkaConsumer> consumer(
      RdKafka::KafkaConsumer::create(conf.get(), error_text));
  if (!consumer) {
    return model::Error::make(model::ErrorCode::service_unavailable, "Kafka: " + error_text);
  }
  const auto code = consumer->subscribe(options.topics);
  if (code != RdKafka::ERR_NO_ERROR) {
    return model::Error::make(model::ErrorCode::service_unavailable,
                              "Kafka subscribe: " + RdKafka::err2str(code));
  }
  return consumer;
}

using Messages = std::vector<std::unique_ptr<RdKafka::Message>>;

void store_offset(RdKafka::KafkaConsumer& consumer, const RdKafka::Message& message,
                  int64_t next_offset) {
  std::unique_ptr<RdKafka::TopicPartition> position(
      RdKafka::TopicPartition::create(message.topic_name(), message.partition(), next_offset));
  std::vector<RdKafka::TopicPartition*> positions{position.get()};
  const auto code = consumer.offsets_store(positions);
  if (code != RdKafka::ERR_NO_ERROR) {
    // The partition was revoked meanwhile; its new owner re-applies the message (idempotent).
    log::warn("kafka.offset_store_failed", {{"error", RdKafka::err2str(code)}});
  }
}

void rewind(RdKafka::KafkaConsumer& consumer, const RdKafka::Message& message) {
  std::unique_ptr<RdKafka::TopicPartition> position(
      RdKafka::TopicPartition::create(message.topic_name(), message.partition(), message.offset()));
  const auto code = consumer.seek(*position, 1000);
  if (code != RdKafka::ERR_NO_ERROR) {
    log::warn("kafka.seek_failed", {{"error", RdKafka::err2str(code)}});
  }
}

struct PreviousBatch {
  std::size_t messages = 0;
  std::chrono::steady_clock::time_point ended;
};

// Waits up to kPollTimeoutMs for a first message, then takes what else has arrived up to
// batch_max. Under load (the previous batch took more than one message, and ended less than
// batch_wait_ms before the first message of this one) it also waits up to batch_wait_ms after
// that first message for more: a batch's statements are per batch, not per message, so larger
// batches cost less per message. A message arriving on an idle or lightly loaded worker (batches
// of one) waits for nothing.
Messages next_batch(RdKafka::KafkaConsumer& consumer, const ConsumerOptions& options,
                    const PreviousBatch& previous) {
  Messages batch;
  const auto wait = std::chrono::milliseconds(options.batch_wait_ms);
  auto deadline = std::chrono::steady_clock::now();
  while (batch.size() < options.batch_max) {
    int timeout_ms = kPollTimeoutMs;
    if (!batch.empty()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      timeout_ms = static_cast<int>(std::max<long>(0, left.count()));
    }
    std::unique_ptr<RdKafka::Message> message(consumer.consume(timeout_ms));
    if (message->err() == RdKafka::ERR__TIMED_OUT) break;
    if (message->err() != RdKafka::ERR_NO_ERROR) {
      log::warn("kafka.consume_error", {{"error", message->errstr()}});
      break;
    }
    if (batch.empty()) {
      const auto first_arrived = std::chrono::steady_clock::now();
      const bool loaded = previous.messages > 1 && first_arrived - previous.ended < wait;
      deadline = loaded ? first_arrived + wait : first_arrived;
    }
    batch.push_back(std::move(message));
  }
  return batch;
}

// Decodes the batch; a message that is not an envelope (not ours, or corrupt) cannot be
// applied and retrying it forever would stall its partition: it is logged loudly, counted and
// passed over (`done`). Returns the deliveries and, per message, its index among them (or -1).
std::vector<Delivery> decode_batch(const Messages& batch, const ConsumerOptions& options,
                                   std::vector<long>& delivery_index) {
  std::vector<Delivery> deliveries;
  for (const auto& message : batch) {
    const std::string_view bytes(static_cast<const char*>(message->payload()), message->len());
    auto envelope = topics::decode(bytes);
    if (!envelope.ok()) {
      log::error("kafka.message_undecodable", {{"topic", message->topic_name()},
                                               {"offset", std::to_string(message->offset())},
                                               {"error", envelope.error().message}});
      metrics::record_message(message->topic_name(), options.group_id,
                              metrics::MessageOutcome::undecodable, 0);
      delivery_index.push_back(-1);
      continue;
    }
    delivery_index.push_back(static_cast<long>(deliveries.size()));
    deliveries.push_back(
        {std::move(*envelope), message->topic_name(), message->partition(), message->offset()});
  }
  return deliveries;
}

// Stores each partition's offset past its last message applied before its first retried one,
// and rewinds the partition to that retried message. Returns true when anything is retried.
bool settle_offsets(RdKafka::KafkaConsumer& consumer, const Messages& batch,
                    const std::vector<HandlerOutcome>& outcomes) {
  std::map<std::pair<std::string, int32_t>, std::size_t> last_done;
  std::map<std::pair<std::string, int32_t>, std::size_t> first_retry;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto key = std::make_pair(batch[i]->topic_name(), batch[i]->partition());
    if (first_retry.count(key) > 0) continue;
    if (outcomes[i] == HandlerOutcome::retry) {
      first_retry[key] = i;
    } else {
      last_done[key] = i;
    }
  }
  for (const auto& [key, index] : last_done) {
    const auto retried = first_retry.find(key);
    const auto next = retried == first_retry.end() ? batch[index]->offset() + 1
                                                   : batch[retried->second]->offset();
    store_offset(consumer, *batch[index], next);
  }
  for (const auto& [key, index] : first_retry) rewind(consumer, *batch[index]);
  return !first_retry.empty();
}

}  // namespace

ConsumerRunner::ConsumerRunner(ConsumerOptions options, BatchHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

model::Status ConsumerRunner::run(const std::atomic<bool>& stop) {
  auto rebalance = std::make_shared<RebalanceLogger>(options_.group_id, options_.topics);
  auto created = create_consumer(options_, *rebalance);
  if (!created.ok()) return created.error();
  auto consumer = std::move(created.value());
  log::info("consumer.started", {{"group", options_.group_id}});
  int backoff_ms = 100;
  auto next_lag_refresh = std::chrono::steady_clock::now();
  PreviousBatch previous;
  while (!stop.load()) {
    if (std::chrono::steady_clock::now() >= next_lag_refresh) {
      publish_lag(*consumer, options_);
      next_lag_refresh = std::chrono::steady_clock::now() + kLagRefreshInterval;
    }
    const auto batch = next_batch(*consumer, options_, previous);
    if (batch.empty()) continue;
    std::vector<long> delivery_index;
    const auto deliveries = decode_batch(batch, options_, delivery_index);
    const auto started = std::chrono::steady_clock::now();
    const auto applied = deliveries.empty() ? std::vector<HandlerOutcome>{} : handler_(deliveries);
    const double seconds_each =
        deliveries.empty() ? 0 : seconds_since(started) / static_cast<double>(deliveries.size());
    std::vector<HandlerOutcome> outcomes;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const auto index = delivery_index[i];
      outcomes.push_back(index < 0 ? HandlerOutcome::done : applied[index]);
      if (index < 0) continue;
      metrics::record_message(batch[i]->topic_name(), options_.group_id,
                              outcomes.back() == HandlerOutcome::retry
                                  ? metrics::MessageOutcome::retried
                                  : metrics::MessageOutcome::applied,
                              seconds_each);
    }
    if (!deliveries.empty()) metrics::record_batch(options_.group_id, deliveries.size());
    previous = {batch.size(), std::chrono::steady_clock::now()};
    if (settle_offsets(*consumer, batch, outcomes)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
      backoff_ms = std::min(backoff_ms * 2, options_.retry_backoff_max_ms);
      continue;
    }
    backoff_ms = 100;
  }
  close_within_bound(std::move(consumer), rebalance, options_.group_id);
  log::info("consumer.stopped", {{"group", options_.group_id}});
  return model::ok_status();
}

}  // namespace payrail::infra::kafka
