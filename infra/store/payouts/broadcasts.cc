#include "infra/store/payouts/broadcasts.h"

#include "infra/plumbing/pg/pool.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"

namespace payrail::infra::store::broadcasts {
namespace {

// The caller holds the payout's row lock (payouts::lock), so no other transaction records this
// payout's attempt while one of these statements runs: the row a statement's own write did not
// return (the intent recorded earlier, the outcome recorded first) is in its snapshot.
#define PAYRAIL_BROADCAST_COLUMNS "reference, outcome, tx_hash, failure_reason"
#define PAYRAIL_WRITTEN_OR_EXISTING(write)                              \
  "WITH written AS (" write " RETURNING " PAYRAIL_BROADCAST_COLUMNS     \
  ") SELECT " PAYRAIL_BROADCAST_COLUMNS                                 \
  ", true FROM written UNION ALL SELECT " PAYRAIL_BROADCAST_COLUMNS     \
  ", false FROM payout_broadcasts WHERE payout_id = $1 AND NOT EXISTS " \
  "(SELECT 1 FROM written)"

constexpr pg::Statement kBegin{
    "broadcasts_begin",
    PAYRAIL_WRITTEN_OR_EXISTING("INSERT INTO payout_broadcasts (payout_id, reference) "
                                "VALUES ($1, $1) ON CONFLICT (payout_id) DO NOTHING")};
// The intents of payouts that had none (each was approved until this transaction), deferred to the
// end of the transaction (store::defer_row): an execution batch records them with one statement. A
// payout whose intent exists already is returned, and fails the transaction: it cannot happen, as
// an intent is recorded only in the transaction that moves its payout to processing.
constexpr pg::Statement kRecordIntents{"broadcasts_record_intents", R"sql(
WITH intent AS (SELECT * FROM unnest($1::text[]) AS i (payout_id)),
written AS (
  INSERT INTO payout_broadcasts (payout_id, reference) SELECT payout_id, payout_id FROM intent
  ON CONFLICT (payout_id) DO NOTHING RETURNING payout_id)
SELECT payout_id FROM intent WHERE payout_id NOT IN (SELECT payout_id FROM written))sql"};
// The outcomes of attempts kept with their payouts' locks (keep_attempt) and found without one,
// deferred to the end of the transaction (store::defer_row). Under the payouts' locks no other
// transaction records an outcome: an attempt whose outcome is recorded already is returned, and
// fails the transaction.
constexpr pg::Statement kRecordOutcomes{"broadcasts_record_outcomes", R"sql(
WITH outcome AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
    AS o (payout_id, outcome, tx_hash, failure_reason)),
written AS (
  UPDATE payout_broadcasts b SET outcome = o.outcome, tx_hash = o.tx_hash,
    failure_reason = o.failure_reason, finished_at = now()
  FROM outcome o WHERE b.payout_id = o.payout_id AND b.outcome IS NULL RETURNING b.payout_id)
SELECT payout_id FROM outcome WHERE payout_id NOT IN (SELECT payout_id FROM written))sql"};
constexpr pg::Statement kFind{"broadcasts_find",
                              "SELECT " PAYRAIL_BROADCAST_COLUMNS
                              ", false FROM payout_broadcasts WHERE payout_id = $1"};
constexpr pg::Statement kFinish{
    "broadcasts_finish",
    PAYRAIL_WRITTEN_OR_EXISTING("UPDATE payout_broadcasts SET outcome = $2, tx_hash = $3, "
                                "failure_reason = $4, finished_at = now() "
                                "WHERE payout_id = $1 AND outcome IS NULL")};
constexpr pg::Statement kSettling{
    "broadcasts_settling",
    "SELECT payout_id, greatest(0, ceil(extract(epoch FROM (finished_at + $2 * interval "
    "'1 millisecond' - clock_timestamp())) * 1000))::bigint, " PAYRAIL_BROADCAST_COLUMNS
    ", false FROM payout_broadcasts WHERE payout_id = ANY($1::text[])"};

// PAYRAIL_BROADCAST_COLUMNS and whether the statement wrote them, from column `first` on.
Broadcast read_broadcast(const pqxx::row& row, int first) {
  return Broadcast{row[first].as<std::string>(), optional_text(row[first + 1]),
                   optional_text(row[first + 2]), optional_text(row[first + 3]),
                   row[first + 4].as<bool>()};
}

std::optional<Broadcast> read_row(const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  return read_broadcast(rows[0], 0);
}

constexpr int kKeptColumns = 5;  // PAYRAIL_KEPT_BROADCAST_COLUMNS, the row's last

std::string kept_key(const std::string& payout_id) {
  return "payout_broadcasts:" + payout_id;
}

// The attempt kept with the payout's lock: nullopt when none was kept, a nullopt attempt when the
// payout had none then.
std::optional<std::optional<Broadcast>> take_kept(pqxx::work& tx, const std::string& payout_id) {
  const auto row = store::take_locked_row(tx, kept_key(payout_id));
  if (!row) return std::nullopt;
  const int first = static_cast<int>(row->size()) - kKeptColumns;
  if ((*row)[first].is_null()) return std::optional<Broadcast>();
  return Broadcast{(*row)[first + 1].as<std::string>(), optional_text((*row)[first + 2]),
                   optional_text((*row)[first + 3]), optional_text((*row)[first + 4]), false};
}

}  // namespace

void keep_attempt(pqxx::work& tx, const std::string& payout_id, const pqxx::row& row) {
  store::keep_locked_row(tx, kept_key(payout_id), row);
}

Broadcast begin(pqxx::work& tx, const std::string& payout_id) {
  if (auto kept = take_kept(tx, payout_id); kept && *kept) return **kept;
  store::flush_deferred(tx, kRecordIntents);  // a new intent of this payout, deferred in this batch
  return *read_row(pg::exec(tx, kBegin, payout_id));
}

Broadcast record_intent(pqxx::work& tx, const std::string& payout_id) {
  store::defer_row(tx, kRecordIntents, store::LockOrder::transition_logs, {payout_id});
  return Broadcast{payout_id, std::nullopt, std::nullopt, std::nullopt, true};
}

std::optional<Broadcast> finish(pqxx::work& tx, const std::string& payout_id, bool accepted,
                                const std::string& tx_hash, const std::string& failure_reason) {
  const std::string outcome = accepted ? "broadcast" : "rejected";
  const auto hash = accepted ? std::optional<std::string>(tx_hash) : std::nullopt;
  const auto reason = accepted ? std::nullopt : std::optional<std::string>(failure_reason);
  const auto kept = take_kept(tx, payout_id);
  if (!kept) {
    store::flush_deferred(tx, kRecordOutcomes);  // an outcome of this payout deferred in this batch
    return read_row(pg::exec(tx, kFinish, payout_id, outcome, hash, reason));
  }
  if (!*kept || (*kept)->outcome) return *kept;  // no intent, or the outcome recorded first
  store::defer_row(tx, kRecordOutcomes, store::LockOrder::transition_logs,
                {payout_id, outcome, hash, reason});
  return Broadcast{(*kept)->reference, outcome, hash, reason, true};
}

std::optional<Broadcast> find(pqxx::work& tx, const std::string& payout_id) {
  return read_row(pg::exec(tx, kFind, payout_id));
}

Settling settling(pqxx::transaction_base& tx, const std::vector<std::string>& payout_ids,
                  long delay_ms) {
  const auto rows = pg::exec(tx, kSettling, pg::sql_array(payout_ids), delay_ms);
  Settling read{read_remaining_delays(rows), {}};
  for (const auto& row : rows) {
    read.recorded[row[0].as<std::string>()] = read_broadcast(row, 2);
  }
  return read;
}

}  // namespace payrail::infra::store::broadcasts
