#include "infra/store/sql/sql.h"

#include "infra/plumbing/pg/sql_array.h"

namespace payrail::infra::store {

std::vector<std::string> parse_text_array(const pqxx::field& field) {
  std::vector<std::string> values;
  if (field.is_null()) return values;
  auto parser = field.as_array();
  for (auto element = parser.get_next(); element.first != pqxx::array_parser::done;
       element = parser.get_next()) {
    if (element.first == pqxx::array_parser::string_value) values.push_back(element.second);
  }
  return values;
}

RemainingDelays read_remaining_delays(const pqxx::result& rows, int id_column,
                                      int remaining_ms_column) {
  RemainingDelays remaining;
  for (const auto& row : rows) {
    remaining[row[id_column].as<std::string>()] = row[remaining_ms_column].as<long>(0);
  }
  return remaining;
}

RemainingDelays read_remaining_delays(const pqxx::result& rows) {
  return read_remaining_delays(rows, 0, 1);
}

namespace {

std::string locked_key(const RowLocks& locks, std::string_view id) {
  return std::string(locks.table) + ":" + std::string(id);
}

}  // namespace

void lock_all(pqxx::work& tx, const RowLocks& locks, const std::vector<std::string>& ids,
              const std::function<void(const pqxx::row&)>& each_row) {
  if (ids.empty()) return;
  const auto rows = pg::exec(tx, locks.lock_all, pg::sql_array(ids));
  // Found by its name once per statement: the statements are the tables' own.
  const auto id_column = rows.column_number("id");
  for (const auto& row : rows) {
    pg::keep_locked_row(tx, locked_key(locks, row[id_column].as<std::string>()), row);
    if (each_row) each_row(row);
  }
}

std::optional<pqxx::row> lock_one(pqxx::work& tx, const RowLocks& locks, std::string_view id) {
  if (auto kept = pg::take_locked_row(tx, locked_key(locks, id))) return kept;
  if (locks.deferred_changes != nullptr) pg::flush_deferred(tx, *locks.deferred_changes);
  const auto rows = pg::exec(tx, locks.lock, std::string(id));
  if (rows.empty()) return std::nullopt;
  return rows[0];
}

}  // namespace payrail::infra::store
