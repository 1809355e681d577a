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

}  // namespace payrail::infra::store
