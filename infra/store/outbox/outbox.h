// Writing to and consuming from the transactional outbox (see 0001_foundation.sql).
#pragma once

#include <pqxx/pqxx>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "infra/store/sql/text.h"
#include "schemas/model/common/mode.h"
#include "topics/envelope.h"
#include "topics/registry.h"

namespace payrail::infra::store::outbox {

// Adds a message for `topic` to the outbox inside the caller's transaction; it is published
// only if that transaction commits. Returns the message id. The row is written just before the
// commit (store::defer_row: a worker batch's messages of every topic are one statement).
std::string enqueue(pqxx::work& tx, const topics::TopicSpec& topic, std::string_view org_id,
                    model::Mode mode, std::string_view resource_id);

// The message enqueue() writes (a fresh message id), for a writer that inserts it into the
// outbox under a condition of its own (the events repository: only when an endpoint subscribes).
topics::Envelope new_message(const topics::TopicSpec& topic, std::string_view org_id,
                             model::Mode mode, std::string_view resource_id);

// A row this process committed, handed to its relay in memory: the relay publishes it without a
// claim statement (relay.cc).
struct CommittedMessage {
  long outbox_id = 0;
  std::string topic;  // the registry name
  std::string key;
  std::string payload;
  std::chrono::steady_clock::time_point committed_at;
};

// While a relay exists in this process (and its list of committed rows has room), a row the
// process inserts is leased to that relay from its insert: next_attempt_at is this many
// milliseconds ahead, so no other relay's claim takes it, and the relay publishes it right after
// the commit (publish_after_commit). Otherwise 0: the row is due at once and a relay's claim of
// every due row finds it within about a second. If the process dies first, the lease runs out and
// any relay's claim of every due row publishes it (kOwnRelayLeaseMs later at most).
long own_relay_lease_ms();

// Once the caller's transaction commits, this process's relay publishes the row (the writer
// calls it for a row it inserted with own_relay_lease_ms() > 0; enqueue() does). `topic` is the
// registry name.
void publish_after_commit(long outbox_id, std::string topic, std::string key, std::string payload);

// What an outbox insert returns (`RETURNING kInsertedColumns`, read by name): the row, and whether
// it is leased to this process's relay.
inline constexpr sql::Text kInsertedColumns =
    "id, topic, message_key, payload, next_attempt_at > now() AS leased";

// The handler of the rows an outbox insert returns (kInsertedColumns): hands each leased row to
// publish_after_commit.
void hand_over_leased(const pqxx::row& inserted);

// Takes up to `count_max` of the rows this process committed, in commit order (for its relay).
// Rows that waited here longer than their lease is safe for are dropped: a claim of every due row
// publishes them once the lease has run out.
std::vector<CommittedMessage> take_committed(std::size_t count_max);
bool committed_waiting();

// Counts the relays of this process (Relay's constructor and destructor): rows are leased to them
// only while one exists.
void relay_created();
void relay_destroyed();

// Called by a topic's designated consumer inside the transaction that applies the message; the
// mark is written just before that transaction commits (store::defer_row: one statement for a worker
// batch's messages), so is_consumed() in the same transaction does not see it yet (the worker
// runtime applies a message delivered twice in one batch once).
void mark_consumed(pqxx::work& tx, std::string_view message_id);

// True when the designated consumer already applied the message (or it is past retention).
bool is_consumed(pqxx::work& tx, std::string_view message_id);

}  // namespace payrail::infra::store::outbox
