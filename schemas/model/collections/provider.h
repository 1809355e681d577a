// What a collection provider is to the domain (its adapters are infra/adapters/collections/):
// the payment instructions it renders for a new collection, and its notifications (a payment
// arrived, failed or was returned), which the store records before anything acts on them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail::model {

enum class ProviderEventType { payment_received, payment_failed, payment_returned };

std::string_view provider_event_type_name(ProviderEventType type);
std::optional<ProviderEventType> parse_provider_event_type(std::string_view text);

// It names no collection: the provider knows only the reference the payer wrote, which the
// settlement worker matches.
struct ProviderEvent {
  std::string provider;           // the adapter's name ("simulated")
  std::string provider_event_id;  // the provider's own id: a redelivery carries the same one
  Mode mode = Mode::test;         // the provider account (sandbox or live) it came from
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

// The port every provider's adapter implements.
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
  virtual std::string instructions_json(const PaymentMethod& method,
                                        std::string_view reference) const = 0;
};

}  // namespace payrail::model
