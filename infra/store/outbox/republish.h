// Re-publishing from Postgres: the outbox keeps every message (consumed rows for
// kConsumedRetentionDays, unconsumed rows until they are consumed), so the messages of a time
// range can be published again when the broker lost them. Consumers are idempotent: a message
// already applied changes nothing, one that was not is applied.
#pragma once

#include <string>

#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/pg/pool.h"
#include "topics/registry.h"

namespace payrail::infra::store::outbox {

struct RepublishRange {
  const topics::TopicSpec* topic = nullptr;
  std::string topic_prefix;
  std::string from;  // created_at >= from (timestamptz text)
  std::string to;    // created_at < to
};

struct Republished {
  long messages = 0;  // acknowledged by the broker
  long failed = 0;    // not acknowledged (run the command again)
};

// Publishes every outbox row of the topic created in [from, to), oldest first, in batches of
// kBatchMax, each batch waiting for the broker's acknowledgements. The rows are not changed.
model::Result<Republished> republish(pg::Pool& pool, kafka::Producer& producer,
                                     const RepublishRange& range);

}  // namespace payrail::infra::store::outbox
