// Test-mode helpers that stand in for a collection's payer and provider
// (docs/collections.md "Test mode"). /receive and /fail record exactly the notifications the
// simulated provider would send (collection_provider_events, with their message on
// collections.provider_events) and nothing else: the settlement worker matches and applies them,
// as it does a real provider's. /expire moves the collection's deadline to the database's now():
// the expiry worker expires it on its next pass. Each answers 202 with the collection as it is
// now. Live keys get 404 resource_missing: the helpers do not exist in live mode.
#pragma once

#include "api/context.h"

namespace payrail::api {

// Body (optional): {"amount": decimal string in the collection's currency (default: the
// collection's amount), "reference": what the payer wrote (default: the collection's reference;
// anything else simulates a payer who wrote the wrong one)}.
model::Result<HttpResponse> test_helper_receive(RequestContext& context);
// Body (optional): {"reason": "payment_failed" (default) | "payment_returned"}. An unpaid
// collection gets the payment and then its failure (both notifications); a received one gets the
// failure; any other status is 409 collection_unexpected_state.
model::Result<HttpResponse> test_helper_fail(RequestContext& context);
// No body. 409 collection_unexpected_state unless awaiting_payment.
model::Result<HttpResponse> test_helper_expire(RequestContext& context);

}  // namespace payrail::api
