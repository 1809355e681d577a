// The screening decision for a stablecoin destination, as a pure function of the destination,
// the loaded sanctions lists and the internal blacklist lookup.
#pragma once

#include <string>

#include "infra/repositories/payouts.h"
#include "infra/sanctions/sanctions.h"
#include "schemas/model/mode.h"

namespace payrail::workers::screening {

struct DestinationToScreen {
  model::Mode mode = model::Mode::test;
  std::string address;
  bool internally_blacklisted = false;
};

// Reasons in a fixed order: ofac_sdn (a listed digital-currency address), internal_blacklist
// (the operators' list, or the test-mode `0blocked` suffix).
infra::repositories::payouts::ScreeningResult decide(const DestinationToScreen& destination,
                                                     const infra::sanctions::SanctionsLists& lists);

}  // namespace payrail::workers::screening
