// The boundary to a collection provider: the licensed partner that gives payers somewhere to
// send money (an Interac e-Transfer recipient, a virtual bank account) and notifies Payrail when
// a payment arrives, fails or is returned.
//
// Two directions cross it:
//   out: instructions() renders a new collection's payment instructions around its reference.
//   in:  a provider's notification becomes a ProviderEvent, which is recorded in PostgreSQL
//        (infra/repositories/collection_provider_events.h, deduplicated by the provider, mode and
//        event id) with a pointer on the collections.provider_events topic, in one transaction. The
//        settlement worker matches it to a collection by reference and applies it.
//
// Test mode always uses the simulator. Live mode uses the provider named by
// PAYRAIL_COLLECTION_PROVIDER; with none, live collections answer 503 provider_unavailable
// before anything is created. `simulated` is the only name today (staging: live collections get
// the simulator's instructions, and notifications are entered with `payrail
// collection-provider-event`); a real provider implements CollectionProvider and its
// notification ingress, and gets a name here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/corridors.h"
#include "schemas/model/mode.h"
#include "schemas/model/result.h"

namespace payrail::infra::collections {

enum class ProviderEventType { payment_received, payment_failed, payment_returned };

std::string_view provider_event_type_name(ProviderEventType type);
std::optional<ProviderEventType> parse_provider_event_type(std::string_view text);

// A provider's notification as an adapter hands it over. It names no collection: the provider
// knows only the reference the payer wrote, which the settlement worker matches.
struct ProviderEvent {
  std::string provider;                  // the adapter's name ("simulated")
  std::string provider_event_id;         // the provider's own id: a redelivery carries the same one
  model::Mode mode = model::Mode::test;  // the provider account (sandbox or live) it came from
  ProviderEventType type = ProviderEventType::payment_received;
  std::string method;       // interac_etransfer, ach, eft
  std::string reference;    // as the payer wrote it (at most 200 characters)
  std::string amount;       // decimal string in `currency`
  std::string currency;     // ISO 4217
  std::string occurred_at;  // ISO 8601 UTC, the provider's time
  // The organization whose own account received it, when the ingress knows it: the test helpers'
  // sandbox is each organization's own, so their notifications match only its collections.
  // nullopt: a provider's shared account, matched across organizations by reference alone.
  std::optional<std::string> org_id;
};

class CollectionProvider {
 public:
  virtual ~CollectionProvider() = default;
  virtual std::string_view name() const = 0;
  // The payment instructions of a new collection as a compact JSON object (docs/collections.md):
  // interac_etransfer {type, send_to, reference, auto_deposit}; ach and eft a virtual account
  // {type: "virtual_account", bank_name, account_holder_name, account_number, routing_number
  // (ach) | institution_number + transit_number (eft), reference}. Called inside the create
  // transaction, so it does no I/O; a provider that issues accounts over its API would allocate
  // them ahead of time.
  virtual std::string instructions_json(const model::PaymentMethod& method,
                                        std::string_view reference) const = 0;
};

// The simulator: fixed, documented instructions (a sandbox Interac recipient and virtual
// accounts whose routing numbers pass their checks) and the notifications a real provider would
// send, which the test helpers record.
class SimulatedCollectionProvider : public CollectionProvider {
 public:
  explicit SimulatedCollectionProvider(model::Mode mode) : mode_(mode) {}
  std::string_view name() const override { return kName; }
  std::string instructions_json(const model::PaymentMethod& method,
                                std::string_view reference) const override;

  // A notification with a fresh provider event id, occurring now, received in `org_id`'s own
  // sandbox account.
  ProviderEvent notification(ProviderEventType type, std::string_view method,
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
  model::Result<const CollectionProvider*> for_mode(model::Mode mode) const;
  // The test-mode simulator (the test helpers' notifications).
  const SimulatedCollectionProvider& simulator() const { return *test_; }

 private:
  std::unique_ptr<SimulatedCollectionProvider> test_;
  std::unique_ptr<CollectionProvider> live_;
};

}  // namespace payrail::infra::collections
