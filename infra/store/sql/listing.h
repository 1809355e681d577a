// The one pagination mechanism for every list endpoint: keyset pagination on
// (created_at DESC, id DESC), scoped by organization and mode, with `starting_after` naming the
// last item of the previous page. Stable under inserts: a page is defined by its cursor row, not
// by an offset.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "infra/store/sql/text.h"

namespace payrail::infra::store {

struct ListQuery {
  int limit = 25;                             // 1..100, validated by the API
  std::optional<std::string> starting_after;  // an id of the same resource type
  std::optional<std::string> created_gte;     // ISO 8601 UTC, validated by the API
  std::optional<std::string> created_lte;
};

template <class Item>
struct Page {
  std::vector<Item> items;
  bool has_more = false;
};

// The SQL every list statement shares. Parameters: $1 org_id, $2 mode, $3 limit + 1,
// $4 starting_after (nullable), $5 created_gte (nullable), $6 created_lte (nullable).
template <std::size_t M>
constexpr auto keyset_conditions(const char (&table)[M]) {
  return sql::concat(
      " org_id = $1 AND mode = $2 AND ($4::text IS NULL OR (created_at, id) < (SELECT "
      "c.created_at, c.id FROM ",
      table,
      " c WHERE c.id = $4 AND c.org_id = $1 AND c.mode = $2)) AND ($5::timestamptz IS NULL OR "
      "created_at >= $5::timestamptz) AND ($6::timestamptz IS NULL OR created_at <= "
      "$6::timestamptz)");
}
// The order of a page, by the table's own columns: a select list that renders `created_at` as
// text under its own name (sql::timestamp) would otherwise be sorted by that text, to the second,
// and not by the listing index.
template <std::size_t M>
constexpr auto keyset_order(const char (&table)[M]) {
  return sql::concat(" ORDER BY ", table, ".created_at DESC, ", table, ".id DESC LIMIT $3");
}

// The same for resources of the whole organization rather than of one mode (KYB submissions):
// $1 org_id, $2 limit + 1, $3 starting_after (nullable), $4 created_gte, $5 created_lte (the
// statement's own filters follow from $6).
template <std::size_t M>
constexpr auto organization_keyset_conditions(const char (&table)[M]) {
  return sql::concat(
      " org_id = $1 AND ($3::text IS NULL OR (created_at, id) < (SELECT c.created_at, c.id FROM ",
      table,
      " c WHERE c.id = $3 AND c.org_id = $1)) AND ($4::timestamptz IS NULL OR created_at >= "
      "$4::timestamptz) AND ($5::timestamptz IS NULL OR created_at <= $5::timestamptz)");
}
template <std::size_t M>
constexpr auto organization_keyset_order(const char (&table)[M]) {
  return sql::concat(" ORDER BY ", table, ".created_at DESC, ", table, ".id DESC LIMIT $2");
}

// Trims the extra row fetched to learn whether another page follows.
template <class Item>
Page<Item> make_page(std::vector<Item> items, int limit) {
  Page<Item> page;
  page.has_more = static_cast<int>(items.size()) > limit;
  if (page.has_more) items.resize(static_cast<std::size_t>(limit));
  page.items = std::move(items);
  return page;
}

}  // namespace payrail::infra::store

#include "infra/plumbing/pg/pool.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store {

// The resources that can be listed, each with its table (a fixed list: never user input).
// KYB submissions belong to the whole organization, not to one mode.
enum class Listable {
  api_keys,
  payouts,
  fiat_payouts,
  events,
  webhook_endpoints,
  kyb_submissions,
  collections
};

// An unknown `starting_after` is a 400, not an empty page: it names no item of this list. `mode`
// is ignored for resources of the whole organization.
model::Result<bool> cursor_exists(pg::Pool& pool, Listable listable, std::string_view org_id,
                                  model::Mode mode, std::string_view id);

}  // namespace payrail::infra::store
