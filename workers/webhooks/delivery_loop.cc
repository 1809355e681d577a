#include "workers/webhooks/delivery_loop.h"

#include <unistd.h>

#include <algorithm>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/store/webhooks/secrets.h"
#include "schemas/model/webhooks/retry_schedule.h"

namespace payrail::workers::webhooks {
namespace {

namespace deliveries = infra::store::webhook_deliveries;
namespace hooks = infra::webhooks;

std::int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

// The attempt's result as payrail_webhook_attempts_total counts it.
std::string_view attempt_result(const deliveries::AttemptOutcome& outcome, bool sent,
                                bool interrupted) {
  if (!sent) return "refused";
  if (interrupted) return "interrupted";
  if (outcome.succeeded) return "succeeded";
  return outcome.status_code ? "http_error" : "transport_error";
}

std::string optional_text(const std::optional<int>& value) {
  return value ? std::to_string(*value) : "";
}

void log_attempt(const deliveries::ClaimedDelivery& delivery,
                 const deliveries::AttemptOutcome& outcome, std::string_view settled) {
  // Ids only: never the URL (its query may carry a token) and never the secret.
  infra::log::info("webhooks.attempt", {{"delivery_id", delivery.delivery_id},
                                        {"endpoint_id", delivery.endpoint_id},
                                        {"event_id", delivery.event_id},
                                        {"attempt", std::to_string(outcome.number)},
                                        {"status_code", optional_text(outcome.status_code)},
                                        {"latency_ms", std::to_string(outcome.latency_ms)},
                                        {"error", outcome.error.value_or("")},
                                        {"outcome", std::string(settled)}});
}

}  // namespace

model::Result<LoopOptions> loop_options_from(const infra::Config& config) {
  LoopOptions options;
  options.senders = config.webhook_delivery_concurrency;
  options.timeout_ms = config.webhook_timeout_ms;
  options.schedule_ms = config.webhook_retry_schedule_ms;
  options.allow_private_targets_in_test = config.webhook_allow_private_targets_in_test;
  auto key = infra::crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                              config.webhook_encryption_key_previous_hex);
  if (!key.ok()) return key.error();
  options.encryption_key = std::move(*key);
  options.client.timeout_ms = config.webhook_timeout_ms;
  if (config.webhook_ca_file) {
    auto anchors = hooks::TrustAnchors::load(*config.webhook_ca_file);
    if (!anchors.ok()) return anchors.error();
    options.client.extra_trust = std::move(*anchors);
  }
  return options;
}

infra::pg::PoolOptions delivery_pool_options(const std::string& database_url,
                                             const LoopOptions& options) {
  return {.url = database_url,
          .max_connections = static_cast<std::size_t>(options.senders) + 2,
          .application_name = "payrail-webhooks-delivery",
          .planner_settings = {"enable_bitmapscan = off", "enable_seqscan = off"}};
}

DeliveryLoop::DeliveryLoop(infra::pg::Pool& pool, LoopOptions options)
    : pool_(pool), options_(std::move(options)) {
  options_.client.interrupt = &interrupt_;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  process_tag_ =
      std::string(host) + "/" + std::to_string(getpid()) + "/" + infra::crypto::random_base62(8);
}

DeliveryLoop::~DeliveryLoop() {
  stop();
}

void DeliveryLoop::start() {
  hooks::initialize_http_client_library();
  for (int i = 0; i < options_.senders; ++i) senders_.emplace_back([this] { run_sender(); });
  dispatcher_ = std::thread([this] { dispatch(); });
  infra::log::info("webhooks.delivery_loop_started",
                   {{"senders", std::to_string(options_.senders)},
                    {"lease_ms", std::to_string(options_.lease_ms())},
                    {"schedule_steps", std::to_string(options_.schedule_ms.size())}});
}

void DeliveryLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  dispatch_wakeup_.notify_all();
  sender_wakeup_.notify_all();
  {
    std::unique_lock lock(mutex_);
    if (!send_finished_.wait_for(lock, std::chrono::milliseconds(kStopGraceMs),
                                 [&] { return sending_ == 0; })) {
      infra::log::warn("webhooks.interrupting_sends", {{"in_flight", std::to_string(sending_)}});
      interrupt_ = true;
    }
  }
  if (dispatcher_.joinable()) dispatcher_.join();
  for (auto& sender : senders_) {
    if (sender.joinable()) sender.join();
  }
}

void DeliveryLoop::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  dispatch_wakeup_.notify_one();
}

std::string DeliveryLoop::next_lease_token() {
  return process_tag_ + "/" + std::to_string(++claims_);
}

// How many deliveries to claim now (under mutex_). The queue holds up to one delivery per sender
// beyond the idle senders, so a busy loop claims half a queue at a time instead of one delivery
// per finished send; an idle sender with nothing queued is served at once. A queued delivery
// waits at most for the sends in progress (each bounded by the timeout), which its lease covers.
int DeliveryLoop::claimable() const {
  const int queued = static_cast<int>(queue_.size());
  const int room = idle_senders_ + options_.senders - queued;
  const bool sender_waiting = idle_senders_ > queued;
  return room > 0 && (sender_waiting || room >= std::max(1, options_.senders / 2)) ? room : 0;
}

void DeliveryLoop::dispatch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const int wanted = claimable();
    if (wanted == 0) {
      // Claim more only when there is room, so a claim never waits.
      dispatch_wakeup_.wait(lock, [&] { return stopping_ || claimable() > 0; });
      continue;
    }
    woken_ = false;
    lock.unlock();
    const auto wait = claim_round(wanted);
    lock.lock();
    if (wait.count() > 0) {
      dispatch_wakeup_.wait_for(lock, wait, [&] { return stopping_ || woken_; });
    }
  }
}

// Claims up to `wanted`; returns how long to wait before the next round.
std::chrono::milliseconds DeliveryLoop::claim_round(int wanted) {
  const auto claimed_at = std::chrono::steady_clock::now();
  auto claimed = deliveries::claim(pool_, next_lease_token(), options_.lease_ms(), wanted);
  if (!claimed.ok()) {
    infra::log::warn("webhooks.claim_failed", {{"error", claimed.error().message}});
    return std::chrono::milliseconds(kErrorBackoffMs);
  }
  const bool batch_full = static_cast<int>(claimed->size()) >= wanted;
  if (!claimed->empty()) {
    std::lock_guard lock(mutex_);
    for (auto& delivery : *claimed) queue_.push_back(Queued{std::move(delivery), claimed_at});
  }
  sender_wakeup_.notify_all();
  if (batch_full) return std::chrono::milliseconds(0);
  auto due = deliveries::next_due_in_ms(pool_);
  if (!due.ok()) return std::chrono::milliseconds(kErrorBackoffMs);
  const auto wait_ms = std::clamp(due->value_or(kIdlePollMaxMs), kIdlePollMinMs, kIdlePollMaxMs);
  return std::chrono::milliseconds(wait_ms);
}

void DeliveryLoop::run_sender() {
  hooks::DeliveryClient client(options_.client);
  std::unique_lock lock(mutex_);
  while (true) {
    ++idle_senders_;
    dispatch_wakeup_.notify_one();
    sender_wakeup_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    --idle_senders_;
    if (queue_.empty()) return;  // stopping, nothing left to give back
    auto queued = std::move(queue_.front());
    queue_.pop_front();
    const bool stopping = stopping_;
    lock.unlock();
    if (stopping) {
      (void)deliveries::release(pool_, queued.delivery);  // another process may take it now
    } else {
      lock.lock();
      ++sending_;
      lock.unlock();
      deliver(client, queued);
    }
    lock.lock();
    if (!stopping) --sending_;
    send_finished_.notify_all();
    woken_ = true;  // a retry may now be due sooner than the dispatcher planned
  }
}

void DeliveryLoop::deliver(hooks::DeliveryClient& client, const Queued& queued) {
  const auto& delivery = queued.delivery;
  const bool allow_private =
      hooks::private_targets_allowed(delivery.mode, options_.allow_private_targets_in_test);
  deliveries::AttemptOutcome outcome;
  auto secret = options_.encryption_key->open(delivery.sealed_secret);
  std::optional<hooks::PreparedTarget> target;
  if (!secret.ok()) {
    outcome.error = "the endpoint's signing secret cannot be opened (encryption key changed?)";
  } else if (auto prepared = client.prepare(delivery.url, allow_private); !prepared.ok()) {
    outcome.error = prepared.error().message;  // refused or unresolvable: nothing is sent
  } else {
    target = std::move(*prepared);
  }
  if (elapsed_ms(queued.claimed_at) + options_.timeout_ms + kLeaseSafetyMs > options_.lease_ms()) {
    infra::log::warn("webhooks.lease_too_short", {{"delivery_id", delivery.delivery_id}});
    (void)deliveries::release(pool_, delivery);
    return;
  }
  auto number = deliveries::begin_attempt(pool_, delivery);
  if (!number.ok()) {
    infra::log::warn("webhooks.begin_failed",
                     {{"delivery_id", delivery.delivery_id}, {"error", number.error().message}});
    return;  // the lease expires and the delivery is claimed again
  }
  if (!*number) {
    infra::log::info("webhooks.skipped", {{"delivery_id", delivery.delivery_id},
                                          {"endpoint_id", delivery.endpoint_id}});
    return;  // endpoint deleted or delivery cancelled since the claim
  }
  outcome.number = **number;
  bool interrupted = false;
  if (target) {
    const auto result = client.deliver(*target, {delivery.url, delivery.event_id, delivery.payload,
                                                 *secret, allow_private, delivery.endpoint_id});
    outcome.status_code = result.status_code;
    outcome.latency_ms = result.latency_ms;
    outcome.error = result.error;
    outcome.succeeded = result.succeeded();
    interrupted = result.interrupted;
  }
  infra::metrics::record_webhook_attempt(attempt_result(outcome, target.has_value(), interrupted),
                                         static_cast<double>(outcome.latency_ms) / 1000.0);
  auto settled = deliveries::finish_attempt(pool_, delivery, outcome, options_.schedule_ms,
                                            model::unit_random());
  if (!settled.ok()) {
    infra::log::warn("webhooks.finish_failed",
                     {{"delivery_id", delivery.delivery_id}, {"error", settled.error().message}});
    return;
  }
  infra::metrics::record_webhook_settled(deliveries::settled_name(*settled));
  log_attempt(delivery, outcome, deliveries::settled_name(*settled));
}

}  // namespace payrail::workers::webhooks
