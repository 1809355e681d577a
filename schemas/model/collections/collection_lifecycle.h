// The collection state machine as data (schemas/model/common/lifecycle.h): one row per allowed
// (from, trigger) pair with its target and effects. The API (create, cancel), the settlement
// worker (payments received, failed or returned; settlement) and the expiry worker apply
// collection transitions only through this table; any pair not listed is forbidden.
// Source: the contract's collection states with the cancel operation (docs/collections.md).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "schemas/model/common/lifecycle.h"

namespace payrail::model {

enum class CollectionStatus { awaiting_payment, received, settled, failed, expired, cancelled };

enum class CollectionTrigger {
  create,            // request accepted: payment instructions returned
  payment_received,  // the provider received the payment
  settle,            // converted to USDC and credited
  payment_failed,    // the provider reports the pay-in failed or was returned
  expire,            // no payment before expires_at (database time)
  cancel,            // the integrator cancelled before payment
};

struct CollectionEffects {
  bool credit = false;                    // USDC credited: collections_received -> available
  std::optional<std::string_view> event;  // webhook event type, if any
  bool starts_settlement = false;         // a collections.received message follows the commit

  bool operator==(const CollectionEffects&) const = default;
};

using CollectionTransition = Transition<CollectionStatus, CollectionTrigger, CollectionEffects>;

std::span<const CollectionTransition> collection_transitions();
std::optional<CollectionTransition> find_collection_transition(std::optional<CollectionStatus> from,
                                                               CollectionTrigger trigger);

// Terminal: no transition leaves the status (settled, failed, expired, cancelled).
bool is_terminal(CollectionStatus status);
bool is_cancelable(CollectionStatus status);

std::string_view collection_status_name(CollectionStatus status);
std::optional<CollectionStatus> parse_collection_status(std::string_view text);
std::string_view collection_trigger_name(CollectionTrigger trigger);

inline constexpr std::size_t kCollectionStatusCount = 6;
inline constexpr std::size_t kCollectionTriggerCount = 6;

}  // namespace payrail::model
