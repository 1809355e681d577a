#include "infra/store/outbox/message_failures.h"

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::message_failures {
namespace {

constexpr pg::Statement kRecord{"message_failures_record", R"sql(
INSERT INTO message_failures AS f
  (message_id, consumer_group, topic, resource_id, attempts, last_error, status, parked_at)
VALUES ($1, $2, $3, $4, 1, $5, CASE WHEN $6::int <= 1 THEN 'parked' ELSE 'retrying' END,
        CASE WHEN $6::int <= 1 THEN now() END)
ON CONFLICT (message_id) DO UPDATE SET
  attempts = f.attempts + 1,
  last_error = EXCLUDED.last_error,
  last_failed_at = now(),
  status = CASE WHEN f.attempts + 1 >= $6::int THEN 'parked' ELSE 'retrying' END,
  parked_at = CASE WHEN f.attempts + 1 >= $6::int THEN now() END
RETURNING attempts, status = 'parked')sql"};

// A failure whose message was applied since (consumed, or past the outbox's retention) is
// shown as resolved: nothing on the hot path has to clear it.
constexpr pg::Statement kList{"message_failures_list", R"sql(
SELECT f.message_id, f.consumer_group, f.topic, f.resource_id, f.attempts, f.last_error,
       CASE WHEN o.message_id IS NULL OR o.consumed_at IS NOT NULL THEN 'resolved'
            ELSE f.status END AS shown_status,
       to_char(f.first_failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       to_char(f.last_failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
       f.redrive_count
FROM message_failures f LEFT JOIN outbox o ON o.message_id = f.message_id
WHERE $1 = '' OR $1 = CASE WHEN o.message_id IS NULL OR o.consumed_at IS NOT NULL
                           THEN 'resolved' ELSE f.status END
ORDER BY f.last_failed_at DESC LIMIT $2)sql",
                              pg::Plan::custom};

constexpr pg::Statement kRedrive{"message_failures_redrive", R"sql(
WITH redriven AS (
  UPDATE message_failures SET status = 'redriven', attempts = 0, redriven_at = now(),
                              redrive_count = redrive_count + 1
  WHERE status = 'parked' AND ($1::text IS NULL OR message_id = $1)
    AND ($2::text IS NULL OR topic = $2)
  RETURNING message_id)
UPDATE outbox SET published_at = NULL, next_attempt_at = now(), publish_attempts = 0
WHERE message_id IN (SELECT message_id FROM redriven) AND consumed_at IS NULL
RETURNING message_id)sql",
                                 pg::Plan::custom};

constexpr pg::Statement kParkedPerTopic{"message_failures_parked_per_topic", R"sql(
SELECT f.topic, count(*) FROM message_failures f JOIN outbox o ON o.message_id = f.message_id
WHERE f.status = 'parked' AND o.consumed_at IS NULL GROUP BY f.topic)sql"};

}  // namespace

Counted record(pqxx::work& tx, const Failure& failure, int attempts_max) {
  const auto rows = pg::exec(tx, kRecord, failure.message_id, failure.consumer_group, failure.topic,
                             failure.resource_id, failure.error, attempts_max);
  return {rows[0][0].as<int>(), rows[0][1].as<bool>()};
}

std::vector<Row> list(pqxx::work& tx, const std::string& status, int limit) {
  std::vector<Row> rows;
  for (const auto& row : pg::exec(tx, kList, status, limit)) {
    rows.push_back({row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>(),
                    row[3].as<std::string>(), row[4].as<int>(), row[5].as<std::string>(),
                    row[6].as<std::string>(), row[7].as<std::string>(), row[8].as<std::string>(),
                    row[9].as<int>()});
  }
  return rows;
}

std::vector<std::string> redrive(pqxx::work& tx, const std::optional<std::string>& message_id,
                                 const std::optional<std::string>& topic) {
  std::vector<std::string> ids;
  for (const auto& row : pg::exec(tx, kRedrive, message_id, topic)) {
    ids.push_back(row[0].as<std::string>());
  }
  return ids;
}

std::vector<std::pair<std::string, long>> parked_per_topic(pqxx::work& tx) {
  std::vector<std::pair<std::string, long>> counts;
  for (const auto& row : pg::exec(tx, kParkedPerTopic)) {
    counts.emplace_back(row[0].as<std::string>(), row[1].as<long>());
  }
  return counts;
}

}  // namespace payrail::infra::store::message_failures
