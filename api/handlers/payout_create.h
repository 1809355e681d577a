#pragma once

#include "api/context.h"

namespace payrail::api {

// POST /v1/payouts: validation, idempotency, live-mode availability, then one transaction that
// holds the funds, then a bounded wait for the screening decision (201, 202 or 403).
void create_payout(ContextPtr context, Responder responder);

}  // namespace payrail::api
