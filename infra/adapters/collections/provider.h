// The boundary to a collection provider: the licensed partner that gives payers somewhere to
// send money (an Interac e-Transfer recipient, a virtual bank account) and notifies Payrail when
// a payment arrives, fails or is returned.
//
// Two directions cross it:
//   out: instructions() renders a new collection's payment instructions around its reference.
//   in:  a provider's notification becomes a ProviderEvent, which is recorded in PostgreSQL
//        (infra/store/collections/collection_provider_events.h, deduplicated by the provider, mode
//        and event id) with a pointer on the collections.provider_events topic, in one transaction.
//        The settlement worker matches it to a collection by reference and applies it.
//
// Test mode always uses the simulator. Live mode uses the provider named by
// PAYRAIL_COLLECTION_PROVIDER; with none, live collections answer 503 provider_unavailable
// before anything is created. `simulated` is the only name today (staging: live collections get
// the simulator's instructions, and notifications are entered with `payrail
// collection-provider-event`); a real provider implements model::CollectionProvider and its
// notification ingress, and gets a name here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/collections/provider.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::collections {

// The simulator: fixed, documented instructions (a sandbox Interac recipient and virtual
// accounts whose routing numbers pass their checks) and the notifications a real provider would
// send, which the test helpers record.
class SimulatedCollectionProvider : public model::CollectionProvider {
 public:
  explicit SimulatedCollectionProvider(model::Mode mode) : mode_(mode) {}
  std::string_view name() const override { return kName; }
  std::string instructions_json(const model::PaymentMethod& method,
                                std::string_view reference) const override;

  // A notification with a fresh provider event id, occurring now, received in `org_id`'s own
  // sandbox account.
  model::ProviderEvent notification(model::ProviderEventType type, std::string_view method,
                                    std::string_view reference, std::string_view amount,
                                    std::string_view currency,
                                    std::optional<std::string> org_id = std::nullopt) const;

  static constexpr std::string_view kName = "simulated";

 private:
  model::Mode mode_;
};

// Names accepted by PAYRAIL_COLLECTION_PROVIDER: "" (none) and "simulated".
bool is_known_provider(std::string_view name);
bool live_provider_configured(std::string_view live_provider_name);

// The provider of each mode, created once per process.
class CollectionProviders {
 public:
  explicit CollectionProviders(std::string_view live_provider_name);
  // 503 provider_unavailable in live mode when none is configured.
  model::Result<const model::CollectionProvider*> for_mode(model::Mode mode) const;
  // The test-mode simulator (the test helpers' notifications).
  const SimulatedCollectionProvider& simulator() const { return *test_; }

 private:
  std::unique_ptr<SimulatedCollectionProvider> test_;
  std::unique_ptr<model::CollectionProvider> live_;
};

}  // namespace payrail::infra::collections
