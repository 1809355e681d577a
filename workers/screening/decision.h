// The screening decision for a stablecoin destination, as a pure function of the destination,
// the loaded sanctions lists and the internal blacklist lookup.
#pragma once

#include <string>
#include <string_view>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/store/payouts/payouts.h"
#include "schemas/model/common/mode.h"

namespace payrail::workers::screening {

struct DestinationToScreen {
  model::Mode mode = model::Mode::test;
  std::string address;
  bool internally_blacklisted = false;
};

// Reasons in a fixed order: ofac_sdn (a listed digital-currency address), internal_blacklist
// (the operators' list, or the test-mode `0blocked` suffix).
infra::store::payouts::ScreeningResult decide(const DestinationToScreen& destination,
                                              const infra::sanctions::SanctionsLists& lists);

// The test-mode trigger of fiat payouts: a beneficiary name ending in this is blocked as if the
// internal blacklist listed it. Live mode ignores it.
inline constexpr std::string_view kBlockedNameSuffix = " BLOCKED";

struct BeneficiaryToScreen {
  model::Mode mode = model::Mode::test;
  std::string name;                     // beneficiary.name as given
  bool internally_blacklisted = false;  // its normalized form is on the operators' list
};

// The decision for a fiat beneficiary, reasons in the same order: ofac_sdn (the name is an SDN
// individual's or entity's name or alias, compared normalized: case, accents, punctuation and
// word order do not matter), internal_blacklist (the operators' list, or the test-mode suffix).
infra::store::payouts::ScreeningResult decide_beneficiary(
    const BeneficiaryToScreen& beneficiary, const infra::sanctions::SanctionsLists& lists);

// Counts the decision in payrail_screening_decisions_total once the transaction recording it
// commits (`resource`: "payout", "fiat_payout").
void count_after_commit(std::string_view resource,
                        const infra::store::payouts::ScreeningResult& result);

}  // namespace payrail::workers::screening
