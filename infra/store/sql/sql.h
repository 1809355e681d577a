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
#include "infra/store/sql/deferred_writes.h"
#include "infra/store/sql/row_locks.h"
#include "infra/store/sql/text.h"

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

}  // namespace payrail::infra::store
