// events -> one pending delivery per subscribed endpoint.
#pragma once

#include <functional>

#include "infra/programs/runtime/worker.h"

namespace payrail::workers::webhooks {

// The `events` topic's prefetch (TopicHandler::prefetch): whether each message of the batch was
// consumed, and its event's subscribed endpoints, in one statement for the batch.
void prefetch_fan_outs(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages);

// PROCESSING IS IDEMPOTENT: one transaction guarded by the outbox consumed mark, and the
// deliveries' UNIQUE (event, endpoint) makes a replay create nothing. Uses what the batch's
// prefetch read, else reads it itself. `wake` runs after the commit, if deliveries were created
// (the fast path into the delivery loop).
model::Status fan_out_event(pqxx::work& tx, const topics::Envelope& message,
                            const std::function<void()>& wake);

}  // namespace payrail::workers::webhooks
