// Writing to and consuming from the transactional outbox (see 0001_foundation.sql).
#pragma once

#include <pqxx/pqxx>

#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/mode.h"
#include "topics/envelope.h"
#include "topics/registry.h"

namespace payrail::infra::outbox {

// Adds a message for `topic` to the outbox inside the caller's transaction; it is published
// only if that transaction commits. Returns the message id.
std::string enqueue(pqxx::work& tx, const topics::TopicSpec& topic, std::string_view org_id,
                    model::Mode mode, std::string_view resource_id);

// The message enqueue() writes (a fresh message id), for a writer that inserts it into the
// outbox under a condition of its own (the events repository: only when an endpoint subscribes).
topics::Envelope new_message(const topics::TopicSpec& topic, std::string_view org_id,
                             model::Mode mode, std::string_view resource_id);

// Once the caller's transaction commits, the relay of this process publishes the row with this
// outbox id without searching the table for it (enqueue() calls it for its rows). A row whose id
// never reaches a relay (the process died first, or the list was full) is found by a relay's
// claim of every due row, at most about a second later.
void publish_after_commit(long outbox_id);

// Takes up to `count_max` of the outbox ids this process committed, oldest first (for its relay).
std::vector<long> take_committed(std::size_t count_max);
bool committed_waiting();

// Called by a topic's designated consumer inside the transaction that applies the message; the
// mark is written just before that transaction commits (pg::defer_row: one statement for a worker
// batch's messages), so is_consumed() in the same transaction does not see it yet (the worker
// runtime applies a message delivered twice in one batch once).
void mark_consumed(pqxx::work& tx, std::string_view message_id);

// True when the designated consumer already applied the message (or it is past retention).
bool is_consumed(pqxx::work& tx, std::string_view message_id);

}  // namespace payrail::infra::outbox
