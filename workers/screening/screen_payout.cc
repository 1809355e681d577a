#include "workers/screening/screen_payout.h"

#include "infra/store/payouts/payouts.h"
#include "schemas/model/payouts/destination.h"
#include "workers/screening/screen_resource.h"

namespace payrail::workers::screening {
namespace {

namespace payouts = infra::store::payouts;

// Stablecoin payouts: the destination address, normalized for its network, against the OFAC
// digital-currency addresses and the internal blacklist.
struct StablecoinPayout {
  using Row = payouts::PayoutRow;
  using Status = model::PayoutStatus;
  using Trigger = model::PayoutTrigger;
  static constexpr std::string_view kResource = "payout";
  static constexpr std::string_view kIdField = "payout_id";

  static std::optional<Row> lock(pqxx::work& tx, const std::string& id) {
    return payouts::lock(tx, id);
  }
  [[nodiscard]] static std::optional<Row> transition(pqxx::work& tx, const Row& row,
                                       std::initializer_list<Trigger> triggers,
                                       const payouts::TransitionDetails& details) {
    return payouts::transition(tx, row, triggers, details);
  }
  static std::string_view trigger_name(Trigger trigger) {
    return model::payout_trigger_name(trigger);
  }
  static const topics::TopicSpec& approved_topic() { return topics::kPayoutsApproved; }
  static payouts::ScreeningResult decide(pqxx::work& tx, const Row& payout,
                                         const ScreeningInputs& inputs) {
    const auto& resource = payout.resource;
    const auto network = model::parse_network(resource.network);
    const auto normalized = network
                                ? model::normalize_address_for_screening(*network, resource.address)
                                : resource.address;
    return screening::decide(
        {resource.mode, resource.address, blacklisted(tx, inputs, "address", normalized)},
        *inputs.lists);
  }
};

}  // namespace

model::Status screen_payout(pqxx::work& tx, const ScreeningInputs& inputs,
                            const topics::Envelope& message) {
  return screen_resource<StablecoinPayout>(tx, inputs, message);
}

}  // namespace payrail::workers::screening
