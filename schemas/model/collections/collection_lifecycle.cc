#include "schemas/model/collections/collection_lifecycle.h"

#include <array>

namespace payrail::model {
namespace {

using S = CollectionStatus;
using T = CollectionTrigger;

// clang-format off
constexpr std::array kTransitions{
    //                   from                 trigger              to                   credit event                   settlement
    CollectionTransition{std::nullopt,        T::create,           S::awaiting_payment, {false, std::nullopt,           false}},
    CollectionTransition{S::awaiting_payment, T::payment_received, S::received,         {false, "collection.received",  true}},
    CollectionTransition{S::received,         T::settle,           S::settled,          {true,  "collection.settled",   false}},
    CollectionTransition{S::received,         T::payment_failed,   S::failed,           {false, "collection.failed",    false}},
    CollectionTransition{S::awaiting_payment, T::expire,           S::expired,          {false, "collection.expired",   false}},
    CollectionTransition{S::awaiting_payment, T::cancel,           S::cancelled,        {false, "collection.cancelled", false}},
};
// clang-format on

constexpr EnumNames<CollectionStatus, kCollectionStatusCount> kStatusNames{
    {"awaiting_payment", "received", "settled", "failed", "expired", "cancelled"}};

constexpr EnumNames<CollectionTrigger, kCollectionTriggerCount> kTriggerNames{
    {"create", "payment_received", "settle", "payment_failed", "expire", "cancel"}};

}  // namespace

std::span<const CollectionTransition> collection_transitions() {
  return kTransitions;
}

std::optional<CollectionTransition> find_collection_transition(std::optional<CollectionStatus> from,
                                                               CollectionTrigger trigger) {
  return find_transition(collection_transitions(), from, trigger);
}

bool is_terminal(CollectionStatus status) {
  return is_terminal_in(collection_transitions(), status);
}

bool is_cancelable(CollectionStatus status) {
  return find_collection_transition(status, T::cancel).has_value();
}

std::string_view collection_status_name(CollectionStatus status) {
  return kStatusNames.name(status);
}

std::optional<CollectionStatus> parse_collection_status(std::string_view text) {
  return kStatusNames.parse(text);
}

std::string_view collection_trigger_name(CollectionTrigger trigger) {
  return kTriggerNames.name(trigger);
}

}  // namespace payrail::model
