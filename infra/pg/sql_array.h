#pragma once

#include <string>
#include <vector>

namespace payrail::infra::pg {

// libpqxx 6.4 cannot bind arrays: values are passed as a Postgres array literal ('{1,2,3}')
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

// Any text as an array literal (each element quoted, '"' and '\\' escaped), cast in SQL to the
// column's type
// ($1::text[], $2::numeric[]). A quoted element never reads as NULL.
inline std::string sql_array(const std::vector<std::string>& values) {
  std::string literal = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal += ',';
    literal += '"';
    for (const char c : values[i]) {
      if (c == '"' || c == '\\') literal += '\\';
      literal += c;
    }
    literal += '"';
  }
  literal += '}';
  return literal;
}

}  // namespace payrail::infra::pg
