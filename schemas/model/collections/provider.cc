#include "schemas/model/collections/provider.h"

#include <array>

namespace payrail::model {
namespace {

constexpr std::array<std::string_view, 3> kEventTypeNames{"payment_received", "payment_failed",
                                                          "payment_returned"};

}  // namespace

std::string_view provider_event_type_name(ProviderEventType type) {
  return kEventTypeNames[static_cast<std::size_t>(type)];
}

std::optional<ProviderEventType> parse_provider_event_type(std::string_view text) {
  for (std::size_t i = 0; i < kEventTypeNames.size(); ++i) {
    if (kEventTypeNames[i] == text) return static_cast<ProviderEventType>(i);
  }
  return std::nullopt;
}

}  // namespace payrail::model
