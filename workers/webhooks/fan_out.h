// events -> one pending delivery per subscribed endpoint.
#pragma once

#include <functional>

#include "infra/runtime/worker.h"

namespace payrail::workers::webhooks {

// PROCESSING IS IDEMPOTENT: one transaction guarded by the outbox consumed mark, and the
// deliveries' UNIQUE (event, endpoint) makes a replay create nothing. `wake` runs after the
// commit, if deliveries were created (the fast path into the delivery loop).
model::Status fan_out_event(pqxx::work& tx, const topics::Envelope& message,
                            const std::function<void()>& wake);

}  // namespace payrail::workers::webhooks
