#include "infra/adapters/partners/payout_partner.h"

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra::partners {
namespace {

constexpr std::string_view kSimulatedPartnerName = "simulated";
constexpr std::size_t kSimulatedReferenceHexLength = 20;

}  // namespace

model::Result<SendOutcome> SimulatedPayoutPartner::send(const PartnerPayout& payout) {
  SendOutcome outcome;
  outcome.accepted = true;
  outcome.partner_reference =
      "SIM-" + crypto::sha256_hex(payout.reference).substr(0, kSimulatedReferenceHexLength);
  return outcome;
}

model::Result<DeliveryResult> SimulatedPayoutPartner::result(const PartnerPayout& payout,
                                                             const std::string&) {
  DeliveryResult result;
  if (honour_test_triggers_ && payout.beneficiary_name.ends_with(kFailTriggerSuffix)) {
    result.delivery = Delivery::returned;
    result.failure_reason =
        "returned_by_partner: simulated return for a test beneficiary whose name ends in FAIL";
    return result;
  }
  result.delivery = Delivery::credited;
  return result;
}

bool is_known_partner(std::string_view name) {
  return name.empty() || name == kSimulatedPartnerName;
}

bool live_partner_configured(std::string_view live_partner_name) {
  return live_partner_name == kSimulatedPartnerName;
}

PayoutPartners::PayoutPartners(std::string_view live_partner_name)
    : test_(std::make_unique<SimulatedPayoutPartner>(true)) {
  if (live_partner_configured(live_partner_name)) {
    live_ = std::make_unique<SimulatedPayoutPartner>(false);
  }
}

PayoutPartner* PayoutPartners::for_mode(model::Mode mode) const {
  return mode == model::Mode::test ? test_.get() : live_.get();
}

}  // namespace payrail::infra::partners
