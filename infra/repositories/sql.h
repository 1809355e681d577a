#pragma once

#include <pqxx/pqxx>

#include <map>
#include <optional>
#include <string>
#include <vector>

// Timestamps leave Postgres already in the API's format (ISO 8601 UTC, second precision).
#define PAYRAIL_TIMESTAMP(column) \
  "to_char(" column " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

namespace payrail::infra::repositories {

inline std::optional<std::string> optional_text(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<std::string>();
}

// Parses a Postgres text[] value such as {a,b,"c d"} (the only arrays we store are scopes,
// events and reasons: simple tokens without quotes or commas).
std::vector<std::string> parse_text_array(const pqxx::field& field);

// Milliseconds until a simulated delay runs out, by resource id (rows of id and milliseconds).
using RemainingDelays = std::map<std::string, long>;
RemainingDelays read_remaining_delays(const pqxx::result& rows);

}  // namespace payrail::infra::repositories
