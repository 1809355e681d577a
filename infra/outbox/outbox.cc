#include "infra/outbox/outbox.h"

#include <mutex>

#include "infra/crypto/crypto.h"
#include "infra/pg/pool.h"
#include "infra/time/clock.h"

namespace payrail::infra::outbox {
namespace {

constexpr pg::Statement kInsertMessage{"outbox_insert", R"sql(
INSERT INTO outbox (message_id, topic, message_key, payload) VALUES ($1, $2, $3, $4)
RETURNING id)sql"};

// Beyond this many, ids are dropped: the relays' claim of every due row finds their rows.
constexpr std::size_t kCommittedIdsMax = 100000;

struct CommittedIds {
  std::mutex mutex;
  std::vector<long> ids;
};

CommittedIds& committed_ids() {
  static CommittedIds committed;
  return committed;
}

// A consumed message was published, whether or not its relay has recorded that yet (the relay
// does not wait for a row a consumer holds: relay.cc).
// Deferred to the end of the transaction (pg::defer_row): a worker batch's marks are one statement.
constexpr pg::Statement kMarkConsumed{"outbox_mark_consumed", R"sql(
UPDATE outbox SET consumed_at = now(), published_at = coalesce(published_at, now())
WHERE message_id = ANY($1::text[]) AND consumed_at IS NULL)sql"};

constexpr pg::Statement kIsConsumed{"outbox_is_consumed", R"sql(
SELECT consumed_at IS NOT NULL FROM outbox WHERE message_id = $1)sql"};

}  // namespace

topics::Envelope new_message(const topics::TopicSpec& topic, std::string_view org_id,
                             model::Mode mode, std::string_view resource_id) {
  topics::Envelope envelope;
  envelope.message_id = "msg_" + crypto::random_base62(24);
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
  const auto inserted = pg::exec(tx, kInsertMessage, envelope.message_id, std::string(topic.name),
                                 envelope.resource_id, topics::encode(envelope));
  publish_after_commit(inserted[0][0].as<long>());
  return envelope.message_id;
}

void publish_after_commit(long outbox_id) {
  pg::after_commit([outbox_id] {
    auto& committed = committed_ids();
    std::lock_guard lock(committed.mutex);
    if (committed.ids.size() < kCommittedIdsMax) committed.ids.push_back(outbox_id);
  });
}

std::vector<long> take_committed(std::size_t count_max) {
  auto& committed = committed_ids();
  std::lock_guard lock(committed.mutex);
  std::vector<long> taken;
  if (committed.ids.size() <= count_max) {  // the usual case: take them all without copying
    taken.swap(committed.ids);
    return taken;
  }
  const auto end = committed.ids.begin() + static_cast<std::ptrdiff_t>(count_max);
  taken.assign(committed.ids.begin(), end);
  committed.ids.erase(committed.ids.begin(), end);
  return taken;
}

bool committed_waiting() {
  auto& committed = committed_ids();
  std::lock_guard lock(committed.mutex);
  return !committed.ids.empty();
}

void mark_consumed(pqxx::work& tx, std::string_view message_id) {
  pg::defer_row(tx, kMarkConsumed, pg::LockOrder::consumed_marks, {std::string(message_id)});
}

bool is_consumed(pqxx::work& tx, std::string_view message_id) {
  const auto rows = pg::exec(tx, kIsConsumed, std::string(message_id));
  return rows.empty() || rows[0][0].as<bool>();
}

}  // namespace payrail::infra::outbox
