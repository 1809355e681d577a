#include "infra/store/payouts/broadcasts.h"

#include <stdexcept>
#include <string_view>

#include "infra/plumbing/pg/pool.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"

namespace payrail::infra::store::broadcasts {
namespace {


// The caller holds the payout's row lock (payouts::lock), so no other transaction records this
// payout's attempt while one of these statements runs: the row a statement's own write did not
// return (the intent recorded earlier, the outcome recorded first) is in its snapshot.
constexpr sql::Text kColumns = "reference, outcome, tx_hash, failure_reason";
// kColumns and whether the statement wrote them (`written`: "true" or "false"), the columns
// read_broadcast() reads by name, whichever the flag.
template <std::size_t M>
constexpr auto attempt_columns(const char (&written)[M]) {
  return sql::concat(kColumns, ", ", written, " AS written");
}
template <std::size_t M>
constexpr auto written_or_existing(const char (&write)[M]) {
  return sql::concat("WITH written AS (", write, " RETURNING ", kColumns, ") SELECT ",
                     attempt_columns("true"), " FROM written UNION ALL SELECT ",
                     attempt_columns("false"),
                     " FROM payout_broadcasts WHERE payout_id = $1 AND NOT EXISTS (SELECT 1 FROM "
                     "written)");
}

constexpr auto kBeginSql = written_or_existing(
    "INSERT INTO payout_broadcasts (payout_id, reference) VALUES ($1, $1) ON CONFLICT (payout_id) "
    "DO NOTHING");
constexpr pg::Statement kBegin{"broadcasts_begin", kBeginSql.c_str()};
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
constexpr auto kFindSql = sql::concat("SELECT ", attempt_columns("false"),
                                      " FROM payout_broadcasts WHERE payout_id = $1");
constexpr pg::Statement kFind{"broadcasts_find", kFindSql.c_str()};
constexpr auto kFinishSql = written_or_existing(
    "UPDATE payout_broadcasts SET outcome = $2, tx_hash = $3, failure_reason = $4, finished_at = "
    "now() WHERE payout_id = $1 AND outcome IS NULL");
constexpr pg::Statement kFinish{"broadcasts_finish", kFinishSql.c_str()};
// Each row: kDelayColumns, then attempt_columns().
constexpr sql::Text kDelayColumns =
    "payout_id, greatest(0, ceil(extract(epoch FROM (finished_at + $2 * interval '1 millisecond' - "
    "clock_timestamp())) * 1000))::bigint AS remaining_ms";
constexpr auto kSettlingSql =
    sql::concat("SELECT ", kDelayColumns, ", ", attempt_columns("false"),
                " FROM payout_broadcasts WHERE payout_id = ANY($1::text[])");
constexpr pg::Statement kSettling{"broadcasts_settling", kSettlingSql.c_str()};

// attempt_columns(), from column `first` on.
Broadcast read_broadcast(const pqxx::row& row, int first) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(attempt_columns("false"), name);
  };
  return Broadcast{
      row[first + at("reference")].as<std::string>(), optional_text(row[first + at("outcome")]),
      optional_text(row[first + at("tx_hash")]), optional_text(row[first + at("failure_reason")]),
      row[first + at("written")].as<bool>()};
}

std::optional<Broadcast> read_row(const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  return read_broadcast(rows[0], 0);
}

std::string kept_key(const std::string& payout_id) {
  return "payout_broadcasts:" + payout_id;
}

// Where kKeptAttemptColumns start in a row they end.
int kept_first_column(const pqxx::row& row) {
  return static_cast<int>(row.size()) - sql::column_count(kKeptAttemptColumns);
}

// The attempt kept with the payout's lock: nullopt when none was kept, a nullopt attempt when the
// payout had none then.
std::optional<std::optional<Broadcast>> take_kept(pqxx::work& tx, const std::string& payout_id) {
  const auto row = store::take_locked_row(tx, kept_key(payout_id));
  if (!row) return std::nullopt;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kKeptAttemptColumns, name);
  };
  const int first = kept_first_column(*row);
  if ((*row)[first + at("payout_id")].is_null()) return std::optional<Broadcast>();
  return Broadcast{(*row)[first + at("reference")].as<std::string>(),
                   optional_text((*row)[first + at("outcome")]),
                   optional_text((*row)[first + at("tx_hash")]),
                   optional_text((*row)[first + at("failure_reason")]), false};
}

}  // namespace

void keep_attempt(pqxx::work& tx, const std::string& payout_id, const pqxx::row& row,
                  int first_column) {
  // take_kept() finds the columns from the row's end: a column after them would shift them.
  if (first_column != kept_first_column(row)) {
    throw std::logic_error("a kept broadcast attempt's columns must end its row");
  }
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
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kDelayColumns, name);
  };
  const auto rows = pg::exec(tx, kSettling, pg::sql_array(payout_ids), delay_ms);
  Settling read{read_remaining_delays(rows, at("payout_id"), at("remaining_ms")), {}};
  for (const auto& row : rows) {
    read.recorded[row[at("payout_id")].as<std::string>()] =
        read_broadcast(row, sql::column_count(kDelayColumns));
  }
  return read;
}

}  // namespace payrail::infra::store::broadcasts
