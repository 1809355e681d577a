// State machines as data, for every resource (payouts, fiat payouts, collections, KYB
// submissions, organizations). A resource's lifecycle is one constexpr table of transitions:
// (from, trigger) -> to, plus the resource's own effects (money movement, event, ...). Any pair not
// in the table is forbidden. A status with no transition out of it is terminal, so the table alone
// decides what is final. The API and every worker change a status only through a row of the table.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace payrail::model {

// One row. `Effects` is the resource's own struct (money movement, event name, ...) with
// `operator==` defaulted, so tests can compare whole rows.
template <class Status, class Trigger, class Effects>
struct Transition {
  std::optional<Status> from;  // nullopt: creation
  Trigger trigger;
  Status to;
  Effects effects;

  bool operator==(const Transition&) const = default;
};

// The rows `triggers` take in turn from `from` (so that one write can record them all, e.g. a
// payout's start of screening and its decision in one transaction), or nullopt when the table
// forbids one of them. `find` is the resource's lookup (find_payout_transition, ...).
template <class Row, class Status, class Trigger>
std::optional<std::vector<Row>> find_transitions(Status from,
                                                 std::initializer_list<Trigger> triggers,
                                                 std::optional<Row> (*find)(std::optional<Status>,
                                                                            Trigger)) {
  std::vector<Row> rows;
  for (const auto trigger : triggers) {
    const auto row = find(from, trigger);
    if (!row) return std::nullopt;
    rows.push_back(*row);
    from = row->to;
  }
  return rows;
}

// Wire names of an enum whose enumerators are 0..Count-1 in declaration order.
template <class Enum, std::size_t Count>
struct EnumNames {
  std::array<std::string_view, Count> names;

  static constexpr std::size_t count = Count;
  static constexpr Enum at(std::size_t index) { return static_cast<Enum>(index); }
  constexpr std::string_view name(Enum value) const {
    return names[static_cast<std::size_t>(value)];
  }
  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (std::size_t i = 0; i < Count; ++i) {
      if (names[i] == text) return at(i);
    }
    return std::nullopt;
  }
};

// The transition for (from, trigger), or nullopt when the table forbids it.
template <class Row, class Status, class Trigger>
constexpr std::optional<Row> find_transition(std::span<const Row> table, std::optional<Status> from,
                                             Trigger trigger) {
  for (const auto& row : table) {
    if (row.from == from && row.trigger == trigger) return row;
  }
  return std::nullopt;
}

// Terminal: the table has no transition out of `status`.
template <class Row, class Status>
constexpr bool is_terminal_in(std::span<const Row> table, Status status) {
  for (const auto& row : table) {
    if (row.from == status) return false;
  }
  return true;
}

}  // namespace payrail::model
