#include "infra/store/sql/deferred_writes.h"
#include "infra/store/outbox/outbox.h"

#include <atomic>
#include <mutex>

#include "infra/plumbing/ids.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/plumbing/time/clock.h"
#include "infra/store/sql/sql.h"

namespace payrail::infra::store::outbox {
namespace {

// Deferred to the end of the transaction (store::defer_row): a worker batch's messages are one
// statement. Returns the rows, for the hand-over of leased ones to this process's relay.
constexpr auto kInsertMessagesSql = sql::concat(R"sql(
INSERT INTO outbox (message_id, topic, message_key, payload, next_attempt_at)
SELECT message_id, topic, message_key, payload, now() + lease_ms * interval '1 millisecond'
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
  AS n(message_id, topic, message_key, payload, lease_ms)
RETURNING )sql",
                                                kInsertedColumns);
constexpr pg::Statement kInsertMessages{"outbox_insert_messages", kInsertMessagesSql.c_str()};

// The producer reports every message within its message timeout (10 s, kafka::ProducerOptions):
// a row handed to the relay at most kHandOverAgeMax after its commit has its publication recorded
// (or its failure backed off) before its lease runs out, so no other relay publishes it as well.
constexpr long kOwnRelayLeaseMs = 15000;
constexpr auto kHandOverAgeMax = std::chrono::seconds(4);

// Beyond this many rows waiting for the relay (about 500 bytes each), rows are inserted due at
// once instead of leased: the relays' claim of every due row finds them.
constexpr std::size_t kCommittedMax = 20000;

struct Committed {
  std::mutex mutex;
  std::vector<CommittedMessage> messages;
  std::atomic<int> relays{0};
};

Committed& committed() {
  static Committed state;
  return state;
}

// A consumed message was published, whether or not its relay has recorded that yet (the relay
// does not wait for a row a consumer holds: relay.cc).
// Deferred to the end of the transaction (store::defer_row): a worker batch's marks are one statement.
constexpr pg::Statement kMarkConsumed{"outbox_mark_consumed", R"sql(
UPDATE outbox SET consumed_at = now(), published_at = coalesce(published_at, now())
WHERE message_id = ANY($1::text[]) AND consumed_at IS NULL)sql"};

constexpr pg::Statement kIsConsumed{"outbox_is_consumed", R"sql(
SELECT consumed_at IS NOT NULL FROM outbox WHERE message_id = $1)sql"};

}  // namespace

topics::Envelope new_message(const topics::TopicSpec& topic, std::string_view org_id,
                             model::Mode mode, std::string_view resource_id) {
  topics::Envelope envelope;
  envelope.message_id = new_id("msg_");
  envelope.type = std::string(topic.message_type);
  envelope.org_id = std::string(org_id);
  envelope.mode = mode;
  envelope.resource_id = std::string(resource_id);
  envelope.created_at = time::format_utc(time::now_utc());
  return envelope;
}

std::string enqueue(pqxx::work& tx, const topics::TopicSpec& topic, std::string_view org_id,
                    model::Mode mode, std::string_view resource_id) {
  const auto envelope = new_message(topic, org_id, mode, resource_id);
  store::defer_row(tx, kInsertMessages, store::LockOrder::messages,
                {envelope.message_id, std::string(topic.name), envelope.resource_id,
                 topics::encode(envelope), std::to_string(own_relay_lease_ms())},
                hand_over_leased);
  return envelope.message_id;
}

void hand_over_leased(const pqxx::row& inserted) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kInsertedColumns, name);
  };
  // Due at once: a relay's claim of every due row takes it.
  if (!inserted[at("leased")].as<bool>()) return;
  publish_after_commit(inserted[at("id")].as<long>(), inserted[at("topic")].as<std::string>(),
                       inserted[at("message_key")].as<std::string>(),
                       inserted[at("payload")].as<std::string>());
}

long own_relay_lease_ms() {
  auto& state = committed();
  if (state.relays.load() == 0) return 0;
  std::lock_guard lock(state.mutex);
  return state.messages.size() < kCommittedMax ? kOwnRelayLeaseMs : 0;
}

void publish_after_commit(long outbox_id, std::string topic, std::string key, std::string payload) {
  pg::after_commit(
      [message = CommittedMessage{
           outbox_id, std::move(topic), std::move(key), std::move(payload), {}}]() mutable {
        message.committed_at = std::chrono::steady_clock::now();
        auto& state = committed();
        std::lock_guard lock(state.mutex);
        state.messages.push_back(std::move(message));  // leased: kept even beyond kCommittedMax
      });
}

std::vector<CommittedMessage> take_committed(std::size_t count_max) {
  auto& state = committed();
  std::vector<CommittedMessage> taken;
  {
    std::lock_guard lock(state.mutex);
    if (state.messages.size() <= count_max) {  // the usual case: take them all without copying
      taken.swap(state.messages);
    } else {
      const auto end = state.messages.begin() + static_cast<std::ptrdiff_t>(count_max);
      taken.assign(std::make_move_iterator(state.messages.begin()), std::make_move_iterator(end));
      state.messages.erase(state.messages.begin(), end);
    }
  }
  const auto oldest = std::chrono::steady_clock::now() - kHandOverAgeMax;
  std::erase_if(taken, [oldest](const auto& message) { return message.committed_at < oldest; });
  return taken;
}

bool committed_waiting() {
  auto& state = committed();
  std::lock_guard lock(state.mutex);
  return !state.messages.empty();
}

void relay_created() {
  ++committed().relays;
}

void relay_destroyed() {
  --committed().relays;
}

void mark_consumed(pqxx::work& tx, std::string_view message_id) {
  store::defer_row(tx, kMarkConsumed, store::LockOrder::consumed_marks, {std::string(message_id)});
}

bool is_consumed(pqxx::work& tx, std::string_view message_id) {
  const auto rows = pg::exec(tx, kIsConsumed, std::string(message_id));
  return rows.empty() || scalar<bool>(rows);
}

}  // namespace payrail::infra::store::outbox
