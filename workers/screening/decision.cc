#include "workers/screening/decision.h"

#include "infra/plumbing/metrics/metrics.h"
#include "infra/plumbing/pg/pool.h"

namespace payrail::workers::screening {

infra::store::payouts::ScreeningResult decide(const DestinationToScreen& destination,
                                              const infra::sanctions::SanctionsLists& lists) {
  infra::store::payouts::ScreeningResult result;
  result.list_version = lists.version();
  if (lists.find_address(destination.address)) result.reasons.emplace_back("ofac_sdn");
  const bool test_trigger =
      destination.mode == model::Mode::test && destination.address.ends_with("0blocked");
  if (destination.internally_blacklisted || test_trigger) {
    result.reasons.emplace_back("internal_blacklist");
  }
  result.blocked = !result.reasons.empty();
  return result;
}

infra::store::payouts::ScreeningResult decide_beneficiary(
    const BeneficiaryToScreen& beneficiary, const infra::sanctions::SanctionsLists& lists) {
  infra::store::payouts::ScreeningResult result;
  result.list_version = lists.version();
  if (lists.name_listed(beneficiary.name)) result.reasons.emplace_back("ofac_sdn");
  const bool test_trigger =
      beneficiary.mode == model::Mode::test && beneficiary.name.ends_with(kBlockedNameSuffix);
  if (beneficiary.internally_blacklisted || test_trigger) {
    result.reasons.emplace_back("internal_blacklist");
  }
  result.blocked = !result.reasons.empty();
  return result;
}

void count_after_commit(std::string_view resource,
                        const infra::store::payouts::ScreeningResult& result) {
  infra::pg::after_commit(
      [resource = std::string(resource), blocked = result.blocked, reasons = result.reasons] {
        infra::metrics::record_screening_decision(resource, blocked ? "blocked" : "clear", reasons);
      });
}

}  // namespace payrail::workers::screening
