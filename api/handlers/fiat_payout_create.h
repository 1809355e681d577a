#pragma once

#include "api/context.h"

namespace payrail::api {

// POST /v1/fiat-payouts: validation against the corridor table, idempotency, live-mode
// availability, the USDC needed at the mode's rate, then one transaction that holds it, then a
// bounded wait for the screening decision (201, 202 or 403).
void create_fiat_payout(ContextPtr context, Responder responder);

}  // namespace payrail::api
