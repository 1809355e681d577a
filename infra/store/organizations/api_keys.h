#pragma once

#include <pqxx/pqxx>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"
#include "schemas/model/organizations/organization_lifecycle.h"

namespace payrail::infra::store::api_keys {

constexpr std::size_t kActiveKeysMax = 100;  // per organization and mode
constexpr std::size_t kSecretLength = 40;    // base62 characters, ~238 bits
constexpr std::size_t kLookupLength = 8;     // secret characters kept in the visible prefix

struct ApiKeyRow {
  std::string id;
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::optional<std::string> name;
  std::string prefix;
  std::vector<std::string> scopes;
  bool revoked = false;
  std::string created_at;
  std::optional<std::string> last_used_at;
};

// A newly created key: the full secret exists only here, in the create response.
struct IssuedKey {
  ApiKeyRow row;
  std::string secret;
};

// A key that matched the visible prefix; the caller compares the hash in constant time.
struct KeyCandidate {
  std::string key_id;
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::vector<std::string> scopes;
  std::string secret_hash;  // raw SHA-256
  model::OrganizationStatus org_status = model::OrganizationStatus::active;
  model::KybStatus kyb_status = model::KybStatus::unverified;
};

// "ck_test_" + 8 characters of a secret "ck_test_<40 base62>"; nullopt if not of that shape.
std::optional<std::string> visible_prefix(std::string_view secret);

// Inserts a key inside the caller's transaction (used at organization creation too).
IssuedKey insert(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                 const std::optional<std::string>& name, const std::vector<std::string>& scopes);

// Creates a key unless the organization already has kActiveKeysMax active keys in that mode.
model::Result<IssuedKey> create(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                const std::optional<std::string>& name,
                                const std::vector<std::string>& scopes);

model::Result<Page<ApiKeyRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    const ListQuery& query);

// False when the key does not exist for this organization and mode, or is already revoked.
model::Result<bool> revoke(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                           std::string_view key_id);

// The candidates of each prefix, in the prefixes' order (a prefix may appear more than once).
model::Result<std::vector<std::vector<KeyCandidate>>> find_by_prefixes(
    pg::Pool& pool, const std::vector<std::string>& prefixes);

using LastUse = std::pair<std::string, std::chrono::system_clock::time_point>;
model::Status record_last_used(pg::Pool& pool, const std::vector<LastUse>& uses);

}  // namespace payrail::infra::store::api_keys
