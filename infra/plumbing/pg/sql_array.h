#pragma once

#include <optional>
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

// One element of a text array literal: quoted ('"' and '\\' escaped), so it never reads as NULL.
inline void append_quoted(std::string& literal, const std::string& value) {
  literal += '"';
  for (const char c : value) {
    if (c == '"' || c == '\\') literal += '\\';
    literal += c;
  }
  literal += '"';
}

// Any text as an array literal, cast in SQL to the column's type ($1::text[], $2::numeric[]).
inline std::string sql_array(const std::vector<std::string>& values) {
  std::string literal = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal += ',';
    append_quoted(literal, values[i]);
  }
  literal += '}';
  return literal;
}

// The same, with nullopt as NULL.
inline std::string sql_array(const std::vector<std::optional<std::string>>& values) {
  std::string literal = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal += ',';
    if (values[i]) {
      append_quoted(literal, *values[i]);
    } else {
      literal += "NULL";
    }
  }
  literal += '}';
  return literal;
}

}  // namespace payrail::infra::pg
