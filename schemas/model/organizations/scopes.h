#pragma once

#include <array>
#include <string_view>

namespace payrail::model {

// Grantable scopes (docs/api.md "Authentication and scopes"): the seven of the contract plus
// collections:write and collections:read. A key created without `scopes` gets all of them.
inline constexpr std::array<std::string_view, 9> kGrantableScopes{
    "payouts:write",      "payouts:read",      "balances:read",
    "webhooks:write",     "webhooks:read",     "organization:read",
    "organization:write", "collections:write", "collections:read"};

inline bool is_grantable_scope(std::string_view scope) {
  for (const auto candidate : kGrantableScopes) {
    if (candidate == scope) return true;
  }
  return false;
}

}  // namespace payrail::model
