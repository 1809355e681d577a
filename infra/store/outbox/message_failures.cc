#include "infra/store/outbox/message_failures.h"

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::message_failures {
namespace {

// The columns record() reads, by name.
constexpr sql::Text kRecordedColumns = "attempts, status = 'parked' AS parked";
constexpr auto kRecordSql = sql::concat(R"sql(
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
RETURNING )sql",
                                        kRecordedColumns);
constexpr pg::Statement kRecord{"message_failures_record", kRecordSql.c_str()};

// A failure whose message was applied since (consumed, or past the outbox's retention) is
// shown as resolved: nothing on the hot path has to clear it. The columns list() reads, by name
// (ORDER BY names the table's last_failed_at, not the text of the same name).
constexpr sql::Text kListColumns = R"sql(f.message_id, f.consumer_group, f.topic, f.resource_id,
       f.attempts, f.last_error,
       CASE WHEN o.message_id IS NULL OR o.consumed_at IS NOT NULL THEN 'resolved'
            ELSE f.status END AS shown_status,
       to_char(f.first_failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
         AS first_failed_at,
       to_char(f.last_failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
         AS last_failed_at,
       f.redrive_count)sql";
constexpr auto kListSql = sql::concat("\nSELECT ", kListColumns, R"sql(
FROM message_failures f LEFT JOIN outbox o ON o.message_id = f.message_id
WHERE $1 = '' OR $1 = CASE WHEN o.message_id IS NULL OR o.consumed_at IS NOT NULL
                           THEN 'resolved' ELSE f.status END
ORDER BY f.last_failed_at DESC LIMIT $2)sql");
constexpr pg::Statement kList{"message_failures_list", kListSql.c_str(), pg::Plan::custom};

// The column redrive() reads, by name.
constexpr sql::Text kRedrivenColumns = "message_id";
constexpr auto kRedriveSql = sql::concat(R"sql(
WITH redriven AS (
  UPDATE message_failures SET status = 'redriven', attempts = 0, redriven_at = now(),
                              redrive_count = redrive_count + 1
  WHERE status = 'parked' AND ($1::text IS NULL OR message_id = $1)
    AND ($2::text IS NULL OR topic = $2)
  RETURNING message_id)
UPDATE outbox SET published_at = NULL, next_attempt_at = now(), publish_attempts = 0
WHERE message_id IN (SELECT message_id FROM redriven) AND consumed_at IS NULL
RETURNING )sql",
                                         kRedrivenColumns);
constexpr pg::Statement kRedrive{"message_failures_redrive", kRedriveSql.c_str(), pg::Plan::custom};

// The columns parked_per_topic() reads, by name.
constexpr sql::Text kParkedColumns = "f.topic, count(*) AS parked";
constexpr auto kParkedPerTopicSql = sql::concat("\nSELECT ", kParkedColumns, R"sql(
FROM message_failures f JOIN outbox o ON o.message_id = f.message_id
WHERE f.status = 'parked' AND o.consumed_at IS NULL GROUP BY f.topic)sql");
constexpr pg::Statement kParkedPerTopic{"message_failures_parked_per_topic",
                                        kParkedPerTopicSql.c_str()};

}  // namespace

Counted record(pqxx::work& tx, const Failure& failure, int attempts_max) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kRecordedColumns, name);
  };
  const auto row = pg::exec(tx, kRecord, failure.message_id, failure.consumer_group, failure.topic,
                            failure.resource_id, failure.error, attempts_max)[0];
  return {row[at("attempts")].as<int>(), row[at("parked")].as<bool>()};
}

std::vector<Row> list(pqxx::work& tx, const std::string& status, int limit) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kListColumns, name);
  };
  std::vector<Row> rows;
  for (const auto& row : pg::exec(tx, kList, status, limit)) {
    rows.push_back(
        {row[at("message_id")].as<std::string>(), row[at("consumer_group")].as<std::string>(),
         row[at("topic")].as<std::string>(), row[at("resource_id")].as<std::string>(),
         row[at("attempts")].as<int>(), row[at("last_error")].as<std::string>(),
         row[at("shown_status")].as<std::string>(), row[at("first_failed_at")].as<std::string>(),
         row[at("last_failed_at")].as<std::string>(), row[at("redrive_count")].as<int>()});
  }
  return rows;
}

std::vector<std::string> redrive(pqxx::work& tx, const std::optional<std::string>& message_id,
                                 const std::optional<std::string>& topic) {
  std::vector<std::string> ids;
  constexpr auto redriven_id = sql::column(kRedrivenColumns, "message_id");
  for (const auto& row : pg::exec(tx, kRedrive, message_id, topic)) {
    ids.push_back(row[redriven_id].as<std::string>());
  }
  return ids;
}

std::vector<std::pair<std::string, long>> parked_per_topic(pqxx::work& tx) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kParkedColumns, name);
  };
  std::vector<std::pair<std::string, long>> counts;
  for (const auto& row : pg::exec(tx, kParkedPerTopic)) {
    counts.emplace_back(row[at("topic")].as<std::string>(), row[at("parked")].as<long>());
  }
  return counts;
}

}  // namespace payrail::infra::store::message_failures
