#pragma once

#include "api/context.h"

namespace payrail::api {

// POST /v1/collections: validation, idempotency, live-mode availability (verified business,
// enabled rail, configured provider and rate source), then one transaction that creates the
// collection with its payment instructions and records the answer (201).
model::Result<HttpResponse> create_collection(RequestContext& context);

}  // namespace payrail::api
