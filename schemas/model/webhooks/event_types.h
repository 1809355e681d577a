// The event names an endpoint can subscribe to (docs/api.md "Events and webhooks"):
// the interface's payout, fiat payout and collection events plus the documented extensions.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace payrail::model {

inline constexpr std::array<std::string_view, 18> kSubscribableEvents{
    "payout.created",        "payout.processing",      "payout.completed",
    "payout.failed",         "payout.blocked",         "payout.pending_approval",
    "payout.cancelled",      "fiat_payout.processing", "fiat_payout.completed",
    "fiat_payout.failed",    "fiat_payout.blocked",    "fiat_payout.pending_approval",
    "fiat_payout.cancelled", "collection.received",    "collection.settled",
    "collection.failed",     "collection.expired",     "collection.cancelled"};

// At most this many entries in a request's `events` (before duplicates are removed).
inline constexpr std::size_t kSubscribedEventsMax = 32;

inline bool is_subscribable_event(std::string_view name) {
  return std::find(kSubscribableEvents.begin(), kSubscribableEvents.end(), name) !=
         kSubscribableEvents.end();
}

}  // namespace payrail::model
