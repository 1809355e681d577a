#include "infra/plumbing/kafka/producer.h"

#include <atomic>
#include <thread>

#include "infra/plumbing/kafka/client.h"
#include "infra/plumbing/log/log.h"

namespace payrail::infra::kafka {
namespace {

// One slot per message of a batch; the delivery callback writes the outcome.
struct DeliverySlot {
  std::atomic<int> state{0};  // 0 pending, 1 delivered, 2 failed
  int32_t partition = -1;     // written before state, read after it
  int64_t offset = -1;
};

class DeliveryCallback : public RdKafka::DeliveryReportCb {
 public:
  void dr_cb(RdKafka::Message& message) override {
    auto* slot = static_cast<DeliverySlot*>(message.msg_opaque());
    if (slot == nullptr) return;
    const bool delivered = message.err() == RdKafka::ERR_NO_ERROR;
    if (!delivered) {
      log::warn("kafka.delivery_failed",
                {{"topic", message.topic_name()}, {"error", RdKafka::err2str(message.err())}});
    }
    slot->partition = message.partition();
    slot->offset = message.offset();
    slot->state.store(delivered ? 1 : 2, std::memory_order_release);
  }
};

model::Error kafka_error(const std::string& text) {
  return model::Error::make(model::ErrorCode::service_unavailable, "Kafka: " + text);
}

}  // namespace

model::Status set_property(RdKafka::Conf& conf, const std::string& name, const std::string& value) {
  std::string error_text;
  if (conf.set(name, value, error_text) != RdKafka::Conf::CONF_OK) {
    return kafka_error(name + ": " + error_text);
  }
  return model::ok_status();
}

Producer::Producer(ProducerOptions options)
    : options_(std::move(options)), delivery_callback_(std::make_unique<DeliveryCallback>()) {}

Producer::~Producer() {
  if (producer_) producer_->flush(options_.message_timeout_ms);
}

model::Result<std::unique_ptr<Producer>> Producer::create(const ProducerOptions& options) {
  std::unique_ptr<Producer> producer(new Producer(options));
  if (auto status = producer->connect(); !status.ok()) return status.error();
  return producer;
}

model::Status Producer::connect() {
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  // librdkafka 2.0.2 defaults to a non-idempotent producer: every option is set explicitly.
  // linger.ms 0: a relay produces its batch in one call and waits for its acknowledgements
  // before the next, so lingering gathered nothing more and put about 1 ms on every hop
  // (docs/design.md, "Measured and left as they are").
  auto properties = connection_properties(options_.brokers);
  properties.insert(properties.end(),
                    {{"client.id", options_.client_id},
                     {"enable.idempotence", "true"},
                     {"acks", "all"},
                     {"max.in.flight.requests.per.connection", "5"},
                     {"linger.ms", "0"},
                     {"message.timeout.ms", std::to_string(options_.message_timeout_ms)},
                     {"queue.buffering.max.messages", "100000"},
                     {"socket.keepalive.enable", "true"}});

  for (const auto& [name, value] : properties) {
    if (auto status = set_property(*conf, name, value); !status.ok()) return status;
  }
  std::string error_text;
  if (conf->set("dr_cb", delivery_callback_.get(), error_text) != RdKafka::Conf::CONF_OK) {
    return kafka_error(error_text);
  }
  producer_.reset(RdKafka::Producer::create(conf.get(), error_text));
  if (!producer_) return kafka_error(error_text);
  return model::ok_status();
}

void Producer::recreate_after_fatal_error() {
  std::string reason;
  if (producer_->fatal_error(reason) == RdKafka::ERR_NO_ERROR) return;
  // A fatal idempotence error (for example after the broker lost its state) poisons this
  // instance; the outbox still holds every unacknowledged row, so a fresh instance loses nothing.
  log::warn("kafka.producer_recreated", {{"reason", reason}});
  producer_.reset();
  if (auto status = connect(); !status.ok()) {
    log::error("kafka.producer_recreate_failed", {{"error", status.error().message}});
  }
}

std::vector<Delivered> Producer::produce_batch(const std::vector<ProduceItem>& items) {
  std::lock_guard lock(mutex_);
  std::vector<Delivered> delivered(items.size());
  if (!producer_ && !connect().ok()) return delivered;
  std::vector<DeliverySlot> slots(items.size());
  std::size_t produced = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    const auto code =
        producer_->produce(item.topic, RdKafka::Topic::PARTITION_UA, RdKafka::Producer::RK_MSG_COPY,
                           const_cast<char*>(item.payload.data()), item.payload.size(),
                           item.key.data(), item.key.size(), 0, &slots[i]);
    if (code != RdKafka::ERR_NO_ERROR) {
      slots[i].state = 2;
      log::warn("kafka.produce_refused",
                {{"topic", item.topic}, {"error", RdKafka::err2str(code)}});
      continue;
    }
    ++produced;
  }
  // Every produced message gets exactly one delivery report within message.timeout.ms; the slots
  // must outlive those reports, so wait for all of them.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(options_.message_timeout_ms + 5000);
  auto pending = [&] {
    for (const auto& slot : slots) {
      if (slot.state.load(std::memory_order_acquire) == 0) return true;
    }
    return false;
  };
  while (produced > 0 && pending() && std::chrono::steady_clock::now() < deadline) {
    producer_->poll(10);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (slots[i].state.load(std::memory_order_acquire) == 1) {
      delivered[i] = {true, slots[i].partition, slots[i].offset};
    }
  }
  if (pending()) {
    // Unreachable by librdkafka's contract; never free slots it may still write to.
    log::error("kafka.delivery_reports_missing", {});
    std::abort();
  }
  recreate_after_fatal_error();
  return delivered;
}

bool Producer::reachable(std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  if (!producer_) return false;
  RdKafka::Metadata* metadata = nullptr;
  const auto code =
      producer_->metadata(true, nullptr, &metadata, static_cast<int>(timeout.count()));
  std::unique_ptr<RdKafka::Metadata> owned(metadata);
  return code == RdKafka::ERR_NO_ERROR && owned && !owned->brokers()->empty();
}

}  // namespace payrail::infra::kafka
