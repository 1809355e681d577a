#pragma once

#include "api/context.h"

namespace payrail::api {

// POST /v1/collections: validation, idempotency, live-mode availability (verified business,
// enabled rail, configured provider and rate source), then the create (in a group of creates,
// api/handlers/idempotent_create.h) with its payment instructions, and the answer (201), recorded
// for replays.
void create_collection(ContextPtr context, Responder responder);

}  // namespace payrail::api
