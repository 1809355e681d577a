// The boundary to a licensed payout partner: sending a fiat payout to a beneficiary's bank
// account, and learning whether it was credited or returned.
//
// Test mode always uses the simulator (no bank is ever touched). Live mode uses the partner named
// by PAYRAIL_PAYOUT_PARTNER; with none configured, live fiat payouts are refused with 503
// provider_unavailable before any funds are held. `simulated` is the only name today (staging:
// live fiat payouts run through the simulator and move no real funds); a real partner's adapter
// implements PayoutPartner and gets a name here.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::partners {

struct PartnerPayout {
  std::string reference;  // idempotency reference: the fiat payout id
  std::string country;
  std::string currency;
  std::string amount;
  std::string beneficiary_name;  // personal data: never logged
  std::string account_json;      // the account in full, opened from its sealed form: never logged
};

struct SendOutcome {
  bool accepted = false;
  std::string partner_reference;  // when accepted: the partner's id, shown as tracking.reference
  std::string failure_reason;     // when refused
};

enum class Delivery {
  pending,   // not final yet: ask again later
  credited,  // the beneficiary's account was credited
  returned,  // delivery failed or the beneficiary's bank returned the funds
};

struct DeliveryResult {
  Delivery delivery = Delivery::pending;
  std::string failure_reason;  // when returned
};

class PayoutPartner {
 public:
  virtual ~PayoutPartner() = default;
  // MUST be idempotent by `payout.reference`: a second call with the same reference returns the
  // first outcome and never sends a second payment (the execution worker may call again after a
  // crash). A transport failure is an error (retried), not a refusal.
  virtual model::Result<SendOutcome> send(const PartnerPayout& payout) = 0;
  // Where an accepted payout stands. A transport failure is an error (asked again).
  virtual model::Result<DeliveryResult> result(const PartnerPayout& payout,
                                               const std::string& partner_reference) = 0;
};

// The simulator: accepts every payout with a deterministic reference "SIM-" + 20 hex characters
// derived from the payout's reference, and reports it credited. With test triggers (test mode
// only; live mode ignores them) a beneficiary name ending in " FAIL" is returned by the partner.
class SimulatedPayoutPartner : public PayoutPartner {
 public:
  explicit SimulatedPayoutPartner(bool honour_test_triggers)
      : honour_test_triggers_(honour_test_triggers) {}
  model::Result<SendOutcome> send(const PartnerPayout& payout) override;
  model::Result<DeliveryResult> result(const PartnerPayout& payout,
                                       const std::string& partner_reference) override;

 private:
  bool honour_test_triggers_;
};

// The test-mode trigger: a beneficiary name ending in this is returned by the partner.
inline constexpr std::string_view kFailTriggerSuffix = " FAIL";

// Names accepted by PAYRAIL_PAYOUT_PARTNER: "" (none) and "simulated".
bool is_known_partner(std::string_view name);
bool live_partner_configured(std::string_view live_partner_name);

// The partner of each mode, created once per process.
class PayoutPartners {
 public:
  explicit PayoutPartners(std::string_view live_partner_name);
  // nullptr when live mode has none configured.
  PayoutPartner* for_mode(model::Mode mode) const;

 private:
  std::unique_ptr<PayoutPartner> test_;
  std::unique_ptr<PayoutPartner> live_;
};

}  // namespace payrail::infra::partners
