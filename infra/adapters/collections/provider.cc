#include "infra/adapters/collections/provider.h"

#include <array>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/time/clock.h"
#include "schemas/model/common/json.h"

namespace payrail::infra::collections {
namespace {

// The simulator's receiving accounts (docs/collections.md "Test mode"). The routing number is
// the ABA-valid test number 110000000; institution 999 and transit 11000 are the sandbox bank's
// own numbers, well-formed (never 000, which no institution is: the corridor table refuses it).
struct SimulatedAccounts {
  std::string_view interac_send_to;
  std::string_view bank_name;
  std::string_view account_holder_name;
  std::string_view ach_account_number;
  std::string_view ach_routing_number;
  std::string_view eft_account_number;
  std::string_view eft_institution_number;
  std::string_view eft_transit_number;
};

constexpr SimulatedAccounts kSandbox{"collections@sandbox.payrail.example",
                                     "Payrail Sandbox Bank",
                                     "Payrail Collections",
                                     "000123456789",
                                     "110000000",
                                     "0001234567",
                                     "999",
                                     "11000"};
constexpr SimulatedAccounts kStaging{"collections@staging.payrail.example",
                                     "Payrail Staging Bank",
                                     "Payrail Collections",
                                     "000987654321",
                                     "110000000",
                                     "0009876543",
                                     "999",
                                     "11000"};

void write_virtual_account(model::json::Writer& writer, const SimulatedAccounts& accounts,
                           bool canadian) {
  using model::json::write_key_string;
  write_key_string(writer, "type", "virtual_account");
  write_key_string(writer, "bank_name", accounts.bank_name);
  write_key_string(writer, "account_holder_name", accounts.account_holder_name);
  if (canadian) {
    write_key_string(writer, "account_number", accounts.eft_account_number);
    write_key_string(writer, "institution_number", accounts.eft_institution_number);
    write_key_string(writer, "transit_number", accounts.eft_transit_number);
  } else {
    write_key_string(writer, "account_number", accounts.ach_account_number);
    write_key_string(writer, "routing_number", accounts.ach_routing_number);
  }
}

}  // namespace

std::string SimulatedCollectionProvider::instructions_json(const model::PaymentMethod& method,
                                                           std::string_view reference) const {
  const auto& accounts = mode_ == model::Mode::test ? kSandbox : kStaging;
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  writer.StartObject();
  if (method.type == "interac_etransfer") {
    model::json::write_key_string(writer, "type", "interac_etransfer");
    model::json::write_key_string(writer, "send_to", accounts.interac_send_to);
    model::json::write_key_string(writer, "reference", reference);
    model::json::write_key(writer, "auto_deposit");
    writer.Bool(true);
  } else {
    write_virtual_account(writer, accounts, method.country == "CA");
    model::json::write_key_string(writer, "reference", reference);
  }
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

model::ProviderEvent SimulatedCollectionProvider::notification(
    model::ProviderEventType type, std::string_view method, std::string_view reference,
    std::string_view amount, std::string_view currency, std::optional<std::string> org_id) const {
  model::ProviderEvent event;
  event.provider = std::string(kName);
  event.provider_event_id = "simevt_" + crypto::random_base62(24);
  event.mode = mode_;
  event.type = type;
  event.method = std::string(method);
  event.reference = std::string(reference);
  event.amount = std::string(amount);
  event.currency = std::string(currency);
  event.occurred_at = time::format_utc(time::now_utc());
  event.org_id = std::move(org_id);
  return event;
}

bool is_known_provider(std::string_view name) {
  return name.empty() || name == SimulatedCollectionProvider::kName;
}

bool live_provider_configured(std::string_view live_provider_name) {
  return live_provider_name == SimulatedCollectionProvider::kName;
}

CollectionProviders::CollectionProviders(std::string_view live_provider_name)
    : test_(std::make_unique<SimulatedCollectionProvider>(model::Mode::test)) {
  if (live_provider_configured(live_provider_name)) {
    live_ = std::make_unique<SimulatedCollectionProvider>(model::Mode::live);
  }
}

model::Result<const model::CollectionProvider*> CollectionProviders::for_mode(
    model::Mode mode) const {
  if (mode == model::Mode::test) return static_cast<const model::CollectionProvider*>(test_.get());
  if (!live_) {
    return model::Error::make(model::ErrorCode::provider_unavailable,
                              "Live collections are not available: no collection provider is "
                              "configured.");
  }
  return static_cast<const model::CollectionProvider*>(live_.get());
}

}  // namespace payrail::infra::collections
