#include "infra/store/outbox/relay.h"

#include <algorithm>
#include <map>
#include <vector>

#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/outbox/message_failures.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/sql/sql.h"
#include "topics/registry.h"

namespace payrail::infra::store::outbox {
namespace {

// A claim is a lease, committed at once: next_attempt_at moves past the publication's longest
// wait, so other relays pass the rows over while this one publishes, and take them over if it
// dies. No row lock is held while waiting for the broker: a consumer that applies a message
// before the relay recorded its publication (consumed_at, in the consumer's batch transaction)
// would otherwise wait for that whole round trip. The columns claim_all_due() reads, by name:
constexpr sql::Text kClaimedColumns = "id, topic, message_key, payload";

// The rows a process commits are leased to its own relay from their insert (outbox.cc), which
// publishes them from memory right after the commit: no claim statement, no search of the table.
// A claim that starts at the oldest entry of outbox_unpublished (next_attempt_at, id) walks the
// dead entries every publication leaves there until VACUUM, and while something holds the xmin
// horizon back (pg_dump, a long report) they cannot even be marked dead: 15 ms per claim within a
// minute at 80/s (docs/measurements.md, "The relay's claims by id"). So that claim of every due row
// runs only once per kAllDueInterval, and again at once while it finds a full batch: rows inserted
// due at once (no relay in their process, or its list was full), rows of a process that died before
// publishing them (once their lease ran out), publication backoffs that ended, re-driven rows.
constexpr auto kClaimAllDueSql = sql::concat(
    "UPDATE outbox SET next_attempt_at = now() + $2::bigint * interval '1 millisecond' WHERE id IN "
    "(SELECT id FROM outbox WHERE published_at IS NULL AND next_attempt_at <= now() AND "
    "consumed_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) RETURNING ",
    kClaimedColumns);
constexpr pg::Statement kClaimAllDue{"outbox_claim_all_due", kClaimAllDueSql.c_str()};

constexpr auto kAllDueInterval = std::chrono::seconds(1);

// The statements that walk outbox_unpublished (the claim of every due row, the backlog count) run
// as plain index scans. Every publication leaves an entry there that points at a dead row version
// until VACUUM, and only a plain index scan marks such entries dead as it passes them, so the
// next scan skips them without reading the table. The planner chose bitmap scans, which never
// mark them: each of these statements then read the table page of every publication since the
// last VACUUM, 15-77 ms every second in every process with 300,000 outbox rows
// (docs/measurements.md, "The outbox walked by plain index scans").
// The backlog count is too small to gain from parallel workers, whose start cost 5 ms a call.
void walk_outbox_unpublished_by_plain_index_scans(pqxx::work& tx) {
  tx.exec0("SET LOCAL enable_bitmapscan = off; SET LOCAL max_parallel_workers_per_gather = 0");
}

// The producer reports every message within its message timeout (10 s); the lease outlives it.
constexpr long kClaimLeaseMs = 30000;

// Recorded RelayOptions::record_after the broker's acknowledgement, for the rows no consumer has
// marked consumed by then: marking a message consumed marks it published too (outbox.cc), so most
// rows are never written by the relay at all (one update of the row, its WAL and its index
// entries less per message). Rows a consumer has locked (it is applying the message) are skipped
// rather than waited for; if that consumer rolls back, the lease runs out and the message is
// published again. `(published_at IS NULL) IS TRUE` keeps the planner on the primary key: the
// plain form matches outbox_unpublished's predicate, and when the statistics say that index is
// nearly empty the plan walks all of it (2.5 ms a call in a webhook benchmark's backlog).
constexpr pg::Statement kMarkPublished{"outbox_mark_published", R"sql(
UPDATE outbox o SET published_at = now(), publish_attempts = o.publish_attempts + 1,
  published_partition = p.partition, published_offset = p.broker_offset
FROM (SELECT l.id, a.partition, a.broker_offset
      FROM unnest($1::bigint[], $2::int[], $3::bigint[]) AS a(id, partition, broker_offset)
      JOIN outbox l ON l.id = a.id
      WHERE (l.published_at IS NULL) IS TRUE
      FOR UPDATE OF l SKIP LOCKED) p
WHERE o.id = p.id)sql"};

// Failed publications back off exponentially, capped at one minute.
constexpr pg::Statement kMarkFailed{"outbox_mark_failed", R"sql(
UPDATE outbox SET publish_attempts = publish_attempts + 1,
  next_attempt_at = now() + least(interval '60 seconds',
                                  interval '200 milliseconds' * power(2, least(publish_attempts, 10)))
WHERE id IN (SELECT id FROM outbox WHERE id = ANY($1::bigint[]) FOR UPDATE SKIP LOCKED))sql"};

// A published row that stays unconsumed is re-driven (published again) when the broker may have
// lost it: it is no longer between the partition's watermarks (the log was truncated or the
// in-memory broker restarted), or its consumer group has committed past it. A row the broker
// still holds, at or after where its group stands, waits for that group: while a role is down its
// backlog is not published again every time it ages. Re-drive waits longer after each re-drive of
// the same row (x2, capped at x64). Parked messages wait for an operator's re-drive (payrail
// message-redrive), not for this one.
constexpr sql::Text kRedriveAge =
    "o.consumed_at IS NULL AND o.published_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
    "message_failures f WHERE f.message_id = o.message_id AND f.status = 'parked') AND "
    "o.published_at < now() - $1::bigint * interval '1 millisecond' AND o.published_at < now() - "
    "$1::bigint * interval '1 millisecond' * least(64, power(2, greatest(o.publish_attempts - 1, "
    "0)))";

// Whether any row is old enough to be re-driven: only then are the groups' positions asked for.
constexpr auto kRedriveDueSql =
    sql::concat("SELECT EXISTS (SELECT 1 FROM outbox o WHERE ", kRedriveAge, ")");
constexpr pg::Statement kRedriveDue{"outbox_redrive_due", kRedriveDueSql.c_str()};

// With the groups' positions (every partition of every topic; $2-$6, one array per column), the
// rows the broker may have lost, whatever their age: per partition, those before where its group
// stands and those past its end, by two range scans of outbox_unconsumed_positions, so the rows
// that wait for their group are never read; and the rows without a recorded position (consumed
// before the relay recorded them, or recorded before 0012_outbox_positions.sql) or in a partition
// the registry does not declare, which only their age decides. Each scan has a LIMIT so that the
// planner keeps it a nested loop of index range scans (without one it hash-joined whole scans of
// outbox_unconsumed: 29 ms with 20,000 rows waiting, against 1 ms); the ORDER BY keeps the last
// one on that index. The rows are re-driven by kRedriveRows, by id: joined to the table here, the
// planner drove the join from a scan of every unconsumed row.
constexpr pg::Statement kFindLost{"outbox_find_lost", R"sql(
WITH p AS MATERIALIZED (
  SELECT topic, partition, greatest(low, committed) AS next, high
  FROM unnest($2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::bigint[])
    AS g(topic, partition, low, high, committed)),
t AS MATERIALIZED (SELECT topic, max(partition) AS last FROM p GROUP BY topic)
SELECT l.id FROM p CROSS JOIN LATERAL (
  SELECT id FROM outbox o WHERE o.topic = p.topic AND o.published_partition = p.partition
    AND o.published_offset < p.next AND o.consumed_at IS NULL AND o.published_at IS NOT NULL
  LIMIT $1) l
UNION ALL
SELECT l.id FROM p CROSS JOIN LATERAL (
  SELECT id FROM outbox o WHERE o.topic = p.topic AND o.published_partition = p.partition
    AND o.published_offset >= p.high AND o.consumed_at IS NULL AND o.published_at IS NOT NULL
  LIMIT $1) l
UNION ALL
SELECT l.id FROM t CROSS JOIN LATERAL (
  SELECT id FROM outbox o WHERE o.topic = t.topic AND o.published_partition IS NULL
    AND o.consumed_at IS NULL AND o.published_at IS NOT NULL
  LIMIT $1) l
UNION ALL
SELECT l.id FROM t CROSS JOIN LATERAL (
  SELECT id FROM outbox o WHERE o.topic = t.topic AND o.published_partition > t.last
    AND o.consumed_at IS NULL AND o.published_at IS NOT NULL
  ORDER BY o.published_partition LIMIT $1) l)sql"};

// Of those rows ($3), the ones old enough.
constexpr auto kRedriveRowsSql = sql::concat(
    "UPDATE outbox SET published_at = NULL, next_attempt_at = now() WHERE id IN (SELECT o.id FROM "
    "outbox o WHERE o.id = ANY($3::bigint[]) AND ",
    kRedriveAge, " ORDER BY o.published_at LIMIT $2 FOR UPDATE OF o SKIP LOCKED)");
constexpr pg::Statement kRedriveRows{"outbox_redrive_rows", kRedriveRowsSql.c_str()};

// Without them (the broker did not answer), by age alone, as every row was before positions were
// recorded. The plain bound on published_at (the shortest wait) lets the index scan of
// outbox_unconsumed skip rows published too recently to be due, instead of computing every
// unconsumed row's backoff at every call.
constexpr auto kRedriveByAgeSql = sql::concat(
    "UPDATE outbox SET published_at = NULL, next_attempt_at = now() WHERE id IN (SELECT o.id FROM "
    "outbox o WHERE ",
    kRedriveAge, " ORDER BY o.published_at LIMIT $2 FOR UPDATE OF o SKIP LOCKED)");
constexpr pg::Statement kRedriveByAge{"outbox_redrive_by_age", kRedriveByAgeSql.c_str()};

// The broker's answer about the groups' positions is awaited this long on the relay's thread.
constexpr auto kPositionsTimeout = std::chrono::milliseconds(1000);

// The backlog per topic, for the metrics: each half uses its own partial index. The columns of
// each half, the first naming the union's (refresh_backlog() reads them by name):
template <std::size_t M>
constexpr auto backlog_columns(const char (&kind)[M]) {
  return sql::concat("topic, '", kind,
                     "' AS backlog, count(*) AS messages, extract(epoch FROM now() - "
                     "min(created_at))::float8 AS oldest_seconds");
}
constexpr auto kBacklogColumns = backlog_columns("unpublished");
constexpr auto kBacklogSql = sql::concat(
    "SELECT ", kBacklogColumns,
    " FROM outbox WHERE published_at IS NULL GROUP BY topic UNION ALL "
    "SELECT ",
    backlog_columns("unconsumed"),
    " FROM outbox WHERE consumed_at IS NULL AND published_at IS NOT NULL GROUP BY topic");
constexpr pg::Statement kBacklog{"outbox_backlog", kBacklogSql.c_str()};

constexpr auto kBacklogRefreshInterval = std::chrono::seconds(5);

// Beyond this many published rows waiting to be recorded, the oldest are recorded at once.
constexpr std::size_t kUnrecordedMax = 50000;

}  // namespace

Relay::Relay(pg::Pool& pool, kafka::Producer& producer, RelayOptions options)
    : pool_(pool),
      producer_(producer),
      options_(std::move(options)),
      positions_(producer.brokers(), options_.topic_prefix) {
  relay_created();
}

Relay::~Relay() {
  stop();
  relay_destroyed();
}

void Relay::start() {
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void Relay::stop() {
  stopping_ = true;
  wake();
  if (thread_.joinable()) thread_.join();
  // What it published is recorded now, not when the rows' lease runs out.
  (void)record_publications(Recording::all);
}

void Relay::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_signal_.notify_one();
}

// The rows this process committed: leased to this relay since their insert, so no claim.
void Relay::take_committed_rows(std::vector<long>& ids, std::vector<kafka::ProduceItem>& items) {
  for (auto& message : take_committed(options_.batch_max)) {
    ids.push_back(message.outbox_id);
    items.push_back(
        {broker_topic(message.topic), std::move(message.key), std::move(message.payload)});
  }
}

model::Status Relay::claim_all_due(std::vector<long>& ids, std::vector<kafka::ProduceItem>& items) {
  return pool_.transact([&](pqxx::work& tx) -> model::Status {
    ids.clear();
    items.clear();
    walk_outbox_unpublished_by_plain_index_scans(tx);
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kClaimedColumns, name);
    };
    std::map<long, kafka::ProduceItem> by_id;  // RETURNING has no order: published oldest first
    for (const auto& row :
         pg::exec(tx, kClaimAllDue, static_cast<long>(options_.batch_max), kClaimLeaseMs)) {
      by_id[row[at("id")].as<long>()] = {broker_topic(row[at("topic")].as<std::string>()),
                                         row[at("message_key")].as<std::string>(),
                                         row[at("payload")].as<std::string>()};
    }
    for (auto& [id, item] : by_id) {
      ids.push_back(id);
      items.push_back(std::move(item));
    }
    return model::ok_status();
  });
}

model::Result<std::size_t> Relay::publish_once(Source source) {
  std::vector<long> ids;
  std::vector<kafka::ProduceItem> items;
  if (source == Source::committed) {
    take_committed_rows(ids, items);
  } else if (auto claimed = claim_all_due(ids, items); !claimed.ok()) {
    return claimed.error();
  }
  if (ids.empty()) return std::size_t{0};
  const auto delivered = producer_.produce_batch(items);
  std::vector<Publication> published;
  std::vector<long> failed;
  std::map<std::string, std::pair<long, long>> per_topic;  // published, failed
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const bool acknowledged = delivered[i].acknowledged;
    if (acknowledged) {
      published.push_back({ids[i], delivered[i].partition, delivered[i].offset});
    } else {
      failed.push_back(ids[i]);
    }
    auto& counts = per_topic[items[i].topic];
    ++(acknowledged ? counts.first : counts.second);
  }
  for (const auto& [topic, counts] : per_topic) {
    metrics::record_outbox_publication(topic, counts.first, counts.second);
  }
  const auto count = published.size();
  if (!published.empty()) {
    unrecorded_count_ += published.size();
    unrecorded_.push_back({std::chrono::steady_clock::now(), std::move(published)});
  }
  // If this fails, the lease runs out and a relay publishes the rows again (at least once).
  if (!failed.empty()) {
    auto backed_off = pool_.transact([&](pqxx::work& tx) -> model::Status {
      pg::exec(tx, kMarkFailed, pg::sql_array(failed));
      return model::ok_status();
    });
    if (!backed_off.ok()) return backed_off.error();
  }
  return count;
}

model::Result<std::size_t> Relay::record_publications(Recording recording) {
  const auto due = std::chrono::steady_clock::now() - options_.record_after;
  std::vector<long> ids;
  std::vector<long> partitions;
  std::vector<long> offsets;
  while (!unrecorded_.empty() &&
         (recording == Recording::all || unrecorded_.front().acknowledged_at <= due ||
          unrecorded_count_ > kUnrecordedMax)) {
    const auto& batch = unrecorded_.front().publications;
    unrecorded_count_ -= batch.size();
    for (const auto& publication : batch) {
      ids.push_back(publication.id);
      partitions.push_back(publication.partition);
      offsets.push_back(static_cast<long>(publication.offset));
    }
    unrecorded_.pop_front();
  }
  if (ids.empty()) return std::size_t{0};
  // One statement, harmless if run twice (it skips recorded rows): no BEGIN and COMMIT. If it
  // fails, the lease runs out and a relay publishes the rows again (at least once).
  return pool_.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::size_t> {
    return static_cast<std::size_t>(pg::exec(tx, kMarkPublished, pg::sql_array(ids),
                                             pg::sql_array(partitions), pg::sql_array(offsets))
                                        .affected_rows());
  });
}

std::chrono::milliseconds Relay::until_next_record() const {
  if (unrecorded_.empty()) return options_.poll_interval;
  const auto due = unrecorded_.front().acknowledged_at + options_.record_after;
  const auto remaining =
      std::chrono::duration_cast<std::chrono::milliseconds>(due - std::chrono::steady_clock::now());
  return std::clamp(remaining + std::chrono::milliseconds(1), std::chrono::milliseconds(0),
                    options_.poll_interval);
}

namespace {

// The groups' positions as the re-drive statement takes them: one array per column. Empty when
// the broker did not answer, and every row is then re-driven by age alone.
struct PositionArrays {
  std::vector<std::string> topics;
  std::vector<long> partitions;
  std::vector<long> lows;
  std::vector<long> highs;
  std::vector<long> commits;
};

PositionArrays read_positions(kafka::GroupPositions& group_positions) {
  PositionArrays positions;
  auto answered = group_positions.all(kPositionsTimeout);
  if (!answered.ok()) {
    log::warn("outbox.redrive_by_age", {{"error", answered.error().message}});
    return positions;
  }
  for (const auto& position : *answered) {
    positions.topics.push_back(position.topic);
    positions.partitions.push_back(position.partition);
    positions.lows.push_back(static_cast<long>(position.low));
    positions.highs.push_back(static_cast<long>(position.high));
    positions.commits.push_back(static_cast<long>(position.committed));
  }
  return positions;
}

}  // namespace

model::Result<std::size_t> Relay::redrive_once() {
  auto due = pool_.autocommit([&](pqxx::nontransaction& tx) -> model::Result<bool> {
    return scalar<bool>(
        pg::exec(tx, kRedriveDue, static_cast<long>(options_.redrive_after.count())));
  });
  if (!due.ok()) return due.error();
  if (!*due) return std::size_t{0};
  const auto positions = read_positions(positions_);
  return pool_.transact([&](pqxx::work& tx) -> model::Result<std::size_t> {
    const auto redrive_after_ms = static_cast<long>(options_.redrive_after.count());
    const auto limit = static_cast<long>(options_.batch_max);
    pqxx::result result;
    if (positions.topics.empty()) {
      result = pg::exec(tx, kRedriveByAge, redrive_after_ms, limit);
    } else {
      // Its estimate (every partition times the batch) passes jit_above_cost: compiling took
      // 20 ms for a statement that runs in 1.
      tx.exec0("SET LOCAL jit = off");
      const auto found =
          pg::exec(tx, kFindLost, limit, pg::sql_array(positions.topics),
                   pg::sql_array(positions.partitions), pg::sql_array(positions.lows),
                   pg::sql_array(positions.highs), pg::sql_array(positions.commits));
      // Its one column, by name once per statement (a union of four: no column list of its own).
      const auto lost_id = found.column_number("id");
      std::vector<long> lost;
      for (const auto& row : found) lost.push_back(row[lost_id].as<long>());
      if (lost.empty()) return std::size_t{0};
      result = pg::exec(tx, kRedriveRows, redrive_after_ms, limit, pg::sql_array(lost));
    }
    const auto count = static_cast<std::size_t>(result.affected_rows());
    if (count > 0) {
      log::warn("outbox.redriven", {{"count", std::to_string(count)}});
      pg::after_commit([count] { metrics::record_outbox_redrive(static_cast<long>(count)); });
    }
    return count;
  });
}

std::string Relay::broker_topic(const std::string& registry_name) const {
  const auto* topic = topics::find_topic(registry_name);
  return topic ? topics::broker_topic_name(*topic, options_.topic_prefix)
               : options_.topic_prefix + registry_name;
}

model::Status Relay::refresh_backlog() {
  return pool_.transact([&](pqxx::work& tx) -> model::Status {
    walk_outbox_unpublished_by_plain_index_scans(tx);
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kBacklogColumns, name);
    };
    std::map<std::string, metrics::OutboxBacklog> by_topic;
    for (const auto& row : pg::exec(tx, kBacklog)) {
      const auto topic = broker_topic(row[at("topic")].as<std::string>());
      auto& entry = by_topic[topic];
      entry.topic = topic;
      const auto messages = row[at("messages")].as<long>();
      const auto oldest_seconds = row[at("oldest_seconds")].as<double>();
      if (row[at("backlog")].as<std::string>() == "unpublished") {
        entry.unpublished = messages;
        entry.oldest_unpublished_seconds = oldest_seconds;
      } else {
        entry.unconsumed = messages;
        entry.oldest_unconsumed_seconds = oldest_seconds;
      }
    }
    for (const auto& [registry_name, count] : store::message_failures::parked_per_topic(tx)) {
      const auto topic = broker_topic(registry_name);
      by_topic[topic].topic = topic;
      by_topic[topic].parked = count;
    }
    std::vector<metrics::OutboxBacklog> backlog;
    for (auto& [topic, entry] : by_topic) backlog.push_back(std::move(entry));
    std::vector<std::string> all_topics;
    for (const auto& topic : topics::all_topics()) {
      all_topics.push_back(topics::broker_topic_name(topic, options_.topic_prefix));
    }
    metrics::set_outbox_backlog(backlog, all_topics);
    return model::ok_status();
  });
}

void Relay::run() {
  const auto redrive_interval =
      std::max(std::chrono::milliseconds(500), options_.redrive_after / 4);
  auto next_redrive = std::chrono::steady_clock::now() + redrive_interval;
  auto next_backlog = std::chrono::steady_clock::now();
  auto next_all_due = std::chrono::steady_clock::now();
  while (!stopping_) {
    // Rows this process just committed go first: a claim that ran ahead of them added its
    // transaction to the path of a payout every kAllDueInterval. Under a load that never pauses,
    // the claim still runs once it is a whole interval late.
    const auto now = std::chrono::steady_clock::now();
    const bool all_due =
        now >= next_all_due && (!committed_waiting() || now >= next_all_due + kAllDueInterval);
    auto published = publish_once(all_due ? Source::all_due : Source::committed);
    const bool full = published.ok() && *published == options_.batch_max;
    // A claim of every due row that came back full may have left more behind: it runs again.
    if (all_due && !full) next_all_due = std::chrono::steady_clock::now() + kAllDueInterval;
    (void)record_publications(Recording::due);
    // The redrive and the backlog count run only when nothing waits to be published. Keep it so
    // for the count: on a thread of its own, every 5 s in every process whatever the load, it
    // cost 15% of the 64-client peak (interleaved, 2026-11-24: 263.6, 242.2 creates/s at 6.99,
    // 7.66 CPU-ms before, 226.2, 204.2 at 8.14, 9.02 with it; docs/measurements.md, "Webhooks:
    // a batch's fan-out in two statements, and the claim's plan").
    if (full || committed_waiting()) continue;  // more is waiting
    if (std::chrono::steady_clock::now() >= next_redrive) {
      (void)redrive_once();
      next_redrive = std::chrono::steady_clock::now() + redrive_interval;
    }
    if (std::chrono::steady_clock::now() >= next_backlog) {
      (void)refresh_backlog();
      next_backlog = std::chrono::steady_clock::now() + kBacklogRefreshInterval;
    }
    std::unique_lock lock(mutex_);
    wake_signal_.wait_for(lock, until_next_record(), [this] { return woken_ || stopping_.load(); });
    woken_ = false;
  }
  // What this process committed before it stopped is published now, not when its lease runs out.
  while (committed_waiting()) {
    auto published = publish_once(Source::committed);
    if (!published.ok() || *published == 0) break;
  }
}

}  // namespace payrail::infra::store::outbox
