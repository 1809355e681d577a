#pragma once

#include <pqxx/pqxx>

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/pg/pool.h"

// Timestamps leave Postgres already in the API's format (ISO 8601 UTC, second precision).
#define PAYRAIL_TIMESTAMP(column) \
  "to_char(" column " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

namespace payrail::infra::store {

// The one value of a statement that selects one column of one row (`SELECT count(*) ...`): the
// only read by position, as there is nothing else it could be.
template <class T>
T scalar(const pqxx::result& result) {
  if (result.size() != 1 || result.columns() != 1) {
    throw std::logic_error("a scalar read found " + std::to_string(result.size()) + " rows of " +
                           std::to_string(result.columns()) + " columns");
  }
  return result[0][0].as<T>();
}

inline std::optional<std::string> optional_text(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<std::string>();
}

// Parses a Postgres text[] value such as {a,b,"c d"} (the only arrays we store are scopes,
// events and reasons: simple tokens without quotes or commas).
std::vector<std::string> parse_text_array(const pqxx::field& field);

// Milliseconds until a simulated delay runs out, by resource id: read from the columns
// `id_column` and `remaining_ms_column` of each row (sql::column of the statement's column list).
using RemainingDelays = std::map<std::string, long>;
RemainingDelays read_remaining_delays(const pqxx::result& rows, int id_column,
                                      int remaining_ms_column);
// The same for rows of exactly an id and its milliseconds, in that order: fiat_payouts.cc's
// statement, until its column list names them.
RemainingDelays read_remaining_delays(const pqxx::result& rows);

// A worker's row locks, one statement per batch. `lock_all` locks the rows of `ids` with one
// statement (one text[] parameter, each row's id in its column named `id`, in id order, SKIP
// LOCKED) and keeps them (pg::keep_locked_row); `lock_one` hands out a kept row the first time
// its id is locked in the transaction, and otherwise runs `lock` (one id parameter). A row another
// transaction holds (an API cancel, an operator) is skipped rather than waited for: its message
// locks it when the batch comes to it, as it would without lock_all, so one contended row does
// not hold back the messages before it. `deferred_changes`, when the table's changes are deferred
// to the commit (pg::defer_row), is written before `lock` reads a row again, so that the read sees
// them.
struct RowLocks {
  const char* table;
  const pg::Statement& lock;
  const pg::Statement& lock_all;
  const pg::Statement* deferred_changes = nullptr;
};
// `each_row`, when given, is called with every row kept (a statement that joins another table's
// columns keeps them for that table's repository too).
void lock_all(pqxx::work& tx, const RowLocks& locks, const std::vector<std::string>& ids,
              const std::function<void(const pqxx::row&)>& each_row = {});
std::optional<pqxx::row> lock_one(pqxx::work& tx, const RowLocks& locks, std::string_view id);

}  // namespace payrail::infra::store
