#include "workers/screening/screen_fiat_payout.h"

#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/screening/blacklist.h"
#include "workers/screening/screen_resource.h"

namespace payrail::workers::screening {
namespace {

namespace fiat_payouts = infra::store::fiat_payouts;

// Fiat payouts: the beneficiary's name, normalized, against the OFAC SDN names and aliases and
// the internal blacklist.
struct FiatPayout {
  using Row = fiat_payouts::FiatPayoutRow;
  using Status = model::FiatPayoutStatus;
  using Trigger = model::FiatPayoutTrigger;
  static constexpr std::string_view kResource = "fiat_payout";
  static constexpr std::string_view kIdField = "fiat_payout_id";

  static std::optional<Row> lock(pqxx::work& tx, const std::string& id) {
    return fiat_payouts::lock(tx, id);
  }
  [[nodiscard]] static std::optional<Row> transition(pqxx::work& tx, const Row& row,
                                       std::initializer_list<Trigger> triggers,
                                       const fiat_payouts::TransitionDetails& details) {
    return fiat_payouts::transition(tx, row, triggers, details);
  }
  static std::string_view trigger_name(Trigger trigger) {
    return model::fiat_payout_trigger_name(trigger);
  }
  static const topics::TopicSpec& approved_topic() { return topics::kFiatPayoutsApproved; }
  static fiat_payouts::ScreeningResult decide(pqxx::work& tx, const Row& payout,
                                              const ScreeningInputs& inputs) {
    const auto& resource = payout.resource;
    const auto listed =
        blacklisted(tx, inputs, "name", model::normalize_name(resource.beneficiary_name));
    return decide_beneficiary({resource.mode, resource.beneficiary_name, listed}, *inputs.lists);
  }
};

}  // namespace

model::Status screen_fiat_payout(pqxx::work& tx, const ScreeningInputs& inputs,
                                 const topics::Envelope& message) {
  return screen_resource<FiatPayout>(tx, inputs, message);
}

}  // namespace payrail::workers::screening
