// SQL as ordinary constants, built at compile time, and the columns of a select list found by
// name at compile time.
//
// A table's column list is one constant beside its mapper:
//
//   constexpr auto kColumns = sql::concat("id, status, amount::text AS amount, ",
//                                         sql::timestamp("created_at"));
//   constexpr pg::Statement kFind{"payouts_find",
//                                 sql::concat("SELECT ", kColumns, " FROM payouts WHERE id = $1")
//                                     .c_str()};  // (through a named constant: see below)
//
// and the mapper reads each field by its name: `row[sql::column(kColumns, "amount")]`. The index
// is computed while compiling (consteval), from the same constant the statement selects, so a
// column added anywhere in the list moves every index with it, and a name the list lacks does
// not compile. A column's name is its alias (`... AS name`), else the identifier it selects (the
// part after the last `.`).
#pragma once

#include <cstddef>
#include <string_view>

namespace payrail::infra::store::sql {

// A string fixed at compile time, NUL-terminated, usable as a pg::Statement's SQL when it is a
// namespace-scope constexpr object.
template <std::size_t N>
struct Text {
  char chars[N + 1]{};

  constexpr Text() = default;
  constexpr Text(const char (&text)[N + 1]) {  // NOLINT(google-explicit-constructor): literals
    for (std::size_t i = 0; i <= N; ++i) chars[i] = text[i];
  }
  constexpr const char* c_str() const { return chars; }
  constexpr std::string_view view() const { return {chars, N}; }
  static constexpr std::size_t size() { return N; }
};
template <std::size_t M>
Text(const char (&)[M]) -> Text<M - 1>;

namespace detail {

template <std::size_t M>
constexpr Text<M - 1> as_text(const char (&text)[M]) {
  return Text<M - 1>(text);
}
template <std::size_t N>
constexpr const Text<N>& as_text(const Text<N>& text) {
  return text;
}

template <std::size_t... N>
constexpr Text<(N + ... + 0)> join(const Text<N>&... parts) {
  Text<(N + ... + 0)> joined;
  std::size_t at = 0;
  (([&] {
     for (std::size_t i = 0; i < N; ++i) joined.chars[at++] = parts.chars[i];
   }()),
   ...);
  joined.chars[at] = '\0';
  return joined;
}

}  // namespace detail

// The parts one after the other: string literals and Texts.
template <class... Parts>
constexpr auto concat(const Parts&... parts) {
  return detail::join(detail::as_text(parts)...);
}

// A timestamp column as the API writes it (ISO 8601 UTC, second precision), named `name`: the
// column's own name unless it is qualified (`d.next_attempt_at` needs a name of its own).
template <std::size_t M, std::size_t N>
constexpr auto timestamp(const char (&column)[M], const char (&name)[N]) {
  return concat("to_char(", column, " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS ",
                name);
}
template <std::size_t M>
constexpr auto timestamp(const char (&column)[M]) {
  for (std::size_t i = 0; i + 1 < M; ++i) {
    if (column[i] == '.') throw "a qualified column's timestamp needs a name: timestamp(column, name)";
  }
  return timestamp(column, column);
}

namespace detail {

constexpr std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
  return text;
}

// The name an item of a select list gives its column; empty for an unnamed expression.
constexpr std::string_view item_name(std::string_view item) {
  item = trim(item);
  int depth = 0;
  std::size_t alias = std::string_view::npos;
  for (std::size_t i = 0; i < item.size(); ++i) {
    const char c = item[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && item.substr(i).starts_with(" AS ")) alias = i + 4;
  }
  if (alias != std::string_view::npos) return trim(item.substr(alias));
  for (const char c : item) {
    const bool identifier =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!identifier) return {};
  }
  const auto dot = item.rfind('.');
  return dot == std::string_view::npos ? item : item.substr(dot + 1);
}

// Calls `each(index, name)` for every item of a select list, split at its top-level commas.
template <class Each>
constexpr void for_each_item(std::string_view list, Each each) {
  int depth = 0;
  bool quoted = false;
  std::size_t start = 0;
  std::size_t index = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '\'') quoted = !quoted;
    if (quoted) continue;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      each(index++, item_name(list.substr(start, i - start)));
      start = i + 1;
    }
  }
}

}  // namespace detail

// The index of the column named `name` in `list`; does not compile when the list has none, or
// two, of that name.
// (An int: libpqxx 6 indexes a row's fields by int.)
template <std::size_t N>
consteval int column(const Text<N>& list, std::string_view name) {
  int found = 0;
  int matches = 0;
  detail::for_each_item(list.view(), [&](std::size_t index, std::string_view item) {
    if (item == name) {
      found = static_cast<int>(index);
      ++matches;
    }
  });
  if (matches != 1) throw "a column list must name the column exactly once";
  return found;
}

// How many columns `list` selects (where the next statement's columns start in a joined row).
template <std::size_t N>
consteval int column_count(const Text<N>& list) {
  int count = 0;
  detail::for_each_item(list.view(), [&](std::size_t, std::string_view) { ++count; });
  return count;
}

}  // namespace payrail::infra::store::sql
