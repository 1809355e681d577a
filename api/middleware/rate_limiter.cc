#include "api/middleware/rate_limiter.h"

#include <algorithm>
#include <cmath>

#include "infra/plumbing/metrics/metrics.h"

namespace payrail::api {

int default_lease_tokens(int per_second, int burst) {
  return std::clamp(per_second / 10, 1, std::max(burst, 1));
}

RateLimiter::RateLimiter(RateLimitOptions options, LeaseFunction lease)
    : options_(options), lease_(std::move(lease)) {
  options_.burst = std::max(options_.burst, 1);
  options_.lease_tokens = std::clamp(options_.lease_tokens, 1, options_.burst);
}

std::shared_ptr<RateLimiter::Slot> RateLimiter::slot_for(const std::string& bucket_key,
                                                         Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (slots_.size() >= kSlotsMax && !slots_.contains(bucket_key)) {
    // An idle slot's leased tokens have expired: it carries nothing worth keeping.
    std::erase_if(slots_, [&](const auto& entry) {
      return now - entry.second->used_at > options_.lease_lifetime;
    });
  }
  auto& slot = slots_[bucket_key];
  if (!slot) slot = std::make_shared<Slot>();
  slot->used_at = now;
  return slot;
}

model::Result<RateDecision> RateLimiter::take(const std::string& bucket_key,
                                              Clock::time_point now) {
  const auto slot = slot_for(bucket_key, now);
  std::lock_guard lock(slot->mutex);
  if (slot->tokens > 0 && now < slot->expires_at) {
    infra::metrics::record_rate_limit_decision(true);
    return allow(*slot);
  }
  if (now < slot->empty_until) {
    infra::metrics::record_rate_limit_decision(false);
    return refuse(*slot, now);
  }
  auto decision = lease_and_take(bucket_key, *slot, now);
  if (decision.ok()) infra::metrics::record_rate_limit_decision(decision->allowed);
  return decision;
}

model::Result<RateDecision> RateLimiter::lease_and_take(const std::string& bucket_key, Slot& slot,
                                                        Clock::time_point now) {
  const auto started = Clock::now();
  auto lease = lease_(bucket_key, options_.lease_tokens);
  if (!lease.ok()) return lease.error();
  infra::metrics::record_rate_limit_lease(
      lease->granted, std::chrono::duration<double>(Clock::now() - started).count());
  slot.tokens = lease->granted;
  slot.expires_at = now + options_.lease_lifetime;
  slot.shared_left = lease->tokens_left;
  if (lease->granted > 0) return allow(slot);
  // Empty: the next token comes in (1 - left) / per_second. Ask again only once a lease's worth
  // could be there (at most a second later), so a throttled bucket costs each process at most
  // per_second / lease_tokens leases a second, never one per refused request.
  const auto per_second = static_cast<double>(options_.per_second);
  const auto seconds_to_token = std::max(0.0, 1.0 - lease->tokens_left) / per_second;
  const auto seconds_to_lease =
      std::min(1.0, std::max(seconds_to_token, options_.lease_tokens / per_second));
  slot.retry_at = now + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(seconds_to_token));
  slot.empty_until = now + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(seconds_to_lease));
  return refuse(slot, now);
}

RateDecision RateLimiter::allow(Slot& slot) const {
  --slot.tokens;
  RateDecision decision;
  decision.limit = options_.per_second;
  decision.remaining = static_cast<int>(std::floor(slot.shared_left)) + slot.tokens;
  return decision;
}

RateDecision RateLimiter::refuse(const Slot& slot, Clock::time_point now) const {
  RateDecision decision;
  decision.allowed = false;
  decision.limit = options_.per_second;
  const auto wait = std::chrono::duration<double>(slot.retry_at - now).count();
  decision.retry_after_seconds = std::max(1, static_cast<int>(std::ceil(wait)));
  return decision;
}

}  // namespace payrail::api
