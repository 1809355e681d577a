#pragma once

#include <string>
#include <vector>

namespace payrail::infra::pg {

// libpqxx 6.4 cannot bind arrays: integers are passed as a Postgres array literal ('{1,2,3}')
// and cast in SQL ($1::bigint[]).
inline std::string sql_array(const std::vector<long>& values) {
  std::string literal = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal += ',';
    literal += std::to_string(values[i]);
  }
  literal += '}';
  return literal;
}

}  // namespace payrail::infra::pg
