#include "topics/registry.h"

#include <array>

namespace payrail::topics {
namespace {

constexpr std::array kAllTopics{kPayoutsRequested,         kPayoutsApproved,     kPayoutsBroadcast,
                                kFiatPayoutsRequested,     kFiatPayoutsApproved, kFiatPayoutsSent,
                                kCollectionProviderEvents, kCollectionsReceived, kEvents};

}  // namespace

std::span<const TopicSpec> all_topics() {
  return kAllTopics;
}

const TopicSpec* find_topic(std::string_view name) {
  for (const auto& topic : kAllTopics) {
    if (topic.name == name) return &topic;
  }
  return nullptr;
}

std::string broker_topic_name(const TopicSpec& topic, std::string_view prefix) {
  std::string name(prefix);
  name += topic.name;
  return name;
}

}  // namespace payrail::topics
