#include "infra/store/organizations/api_keys.h"

#include <stdexcept>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/ids.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::api_keys {
namespace {

// The columns read_row() maps, by name (sql::column).
constexpr auto kColumns =
    sql::concat("id, org_id, mode, name, prefix, scopes, revoked_at IS NOT NULL AS revoked, ",
                sql::timestamp("created_at"), ", ", sql::timestamp("last_used_at"));

constexpr auto kInsertSql = sql::concat(
    "INSERT INTO api_keys (id, org_id, mode, name, prefix, secret_hash, scopes) VALUES ($1, $2, "
    "$3, $4, $5, $6, $7::text[]) RETURNING ",
    kColumns);
constexpr pg::Statement kInsert{"api_keys_insert", kInsertSql.c_str()};

// Serializes key creation per organization so the active-key limit cannot be raced past.
constexpr pg::Statement kLockOrganization{"api_keys_lock_organization",
                                          "SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE"};

constexpr pg::Statement kCountActive{
    "api_keys_count_active",
    "SELECT count(*) FROM api_keys WHERE org_id = $1 AND mode = $2 "
    "AND revoked_at IS NULL"};

// The order qualified: a bare created_at would name the select list's text column (in ORDER BY
// an output column's name wins over the table's), sorting by the text, to the second, and not by
// the index.
constexpr auto kListSql =
    sql::concat("SELECT ", kColumns, " FROM api_keys WHERE", keyset_conditions("api_keys"),
                " ORDER BY api_keys.created_at DESC, id DESC LIMIT $3");
constexpr pg::Statement kList{"api_keys_list", kListSql.c_str(), pg::Plan::custom};

constexpr pg::Statement kRevoke{"api_keys_revoke",
                                "UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND "
                                "org_id = $2 AND mode = $3 AND revoked_at IS NULL"};

// The keys of several requests at once (authentication reads them in groups: pg::GroupedReads).
// Each key's organization is read by its primary key (the LATERAL subquery with OFFSET 0 is not
// merged into a join). As a join, the generic plan, which expects ten keys for any array, hashed
// them and read every organization for each request: 0.2 ms a lookup with 1,728 organizations,
// against 0.02 ms, and more with every organization.
// The columns read_candidate() maps, by name.
constexpr sql::Text kCandidateColumns =
    "k.prefix, k.id, k.org_id, k.mode, k.scopes, k.secret_hash, o.status, o.kyb_status";
constexpr auto kFindByPrefixesSql = sql::concat(
    "SELECT ", kCandidateColumns,
    " FROM api_keys k CROSS JOIN LATERAL (SELECT status, kyb_status FROM organizations WHERE id = "
    "k.org_id OFFSET 0) o WHERE k.prefix = ANY($1::text[]) AND k.revoked_at IS NULL");
constexpr pg::Statement kFindByPrefixes{"api_keys_find_by_prefixes", kFindByPrefixesSql.c_str()};

// Timestamps travel as epoch microseconds so they stay exact.
constexpr pg::Statement kRecordLastUsed{
    "api_keys_record_last_used",
    "UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, u.used_at) "
    "FROM (SELECT unnest($1::text[]) AS id, "
    "to_timestamp(unnest($2::bigint[]) / 1000000.0) AS used_at) AS u WHERE k.id = u.id"};

ApiKeyRow read_row(const pqxx::row& row) {
  ApiKeyRow key;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  key.id = row[at("id")].as<std::string>();
  key.org_id = row[at("org_id")].as<std::string>();
  key.mode = *model::parse_mode(row[at("mode")].as<std::string>());
  key.name = optional_text(row[at("name")]);
  key.prefix = row[at("prefix")].as<std::string>();
  key.scopes = parse_text_array(row[at("scopes")]);
  key.revoked = row[at("revoked")].as<bool>();
  key.created_at = row[at("created_at")].as<std::string>();
  key.last_used_at = optional_text(row[at("last_used_at")]);
  return key;
}

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

}  // namespace

std::optional<std::string> visible_prefix(std::string_view secret) {
  const auto tag_length = std::string_view("ck_test_").size();
  if (secret.size() != tag_length + kSecretLength) return std::nullopt;
  if (!secret.starts_with("ck_test_") && !secret.starts_with("ck_live_")) return std::nullopt;
  return std::string(secret.substr(0, tag_length + kLookupLength));
}

IssuedKey insert(pqxx::work& tx, std::string_view org_id, model::Mode mode,
                 const std::optional<std::string>& name, const std::vector<std::string>& scopes) {
  IssuedKey issued;
  issued.secret = "ck_" + mode_text(mode) + "_" + crypto::random_base62(kSecretLength);
  const auto prefix = *visible_prefix(issued.secret);
  const auto hash = crypto::sha256(issued.secret);
  const auto rows =
      pg::exec(tx, kInsert, new_id("key_"), std::string(org_id), mode_text(mode), name, prefix,
               pqxx::binarystring(hash.data(), hash.size()), pg::sql_array(scopes));
  issued.row = read_row(rows[0]);
  return issued;
}

model::Result<IssuedKey> create(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                const std::optional<std::string>& name,
                                const std::vector<std::string>& scopes) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<IssuedKey> {
    pg::exec(tx, kLockOrganization, std::string(org_id));
    const auto active = pg::exec(tx, kCountActive, std::string(org_id), mode_text(mode));
    if (scalar<std::size_t>(active) >= kActiveKeysMax) {
      return model::Error::make(model::ErrorCode::resource_limit_reached,
                                "An organization can have at most 100 active API keys per "
                                "mode; revoke one first.");
    }
    return insert(tx, org_id, mode, name, scopes);
  });
}

model::Result<Page<ApiKeyRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                    const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<ApiKeyRow>> {
    const auto rows = pg::exec(tx, kList, std::string(org_id), mode_text(mode), query.limit + 1,
                               query.starting_after, query.created_gte, query.created_lte);
    std::vector<ApiKeyRow> keys;
    for (const auto& row : rows) keys.push_back(read_row(row));
    return make_page(std::move(keys), query.limit);
  });
}

model::Result<bool> revoke(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                           std::string_view key_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return pg::exec(tx, kRevoke, std::string(key_id), std::string(org_id), mode_text(mode))
               .affected_rows() == 1;
  });
}

namespace {

constexpr auto candidate_at = [](std::string_view name) consteval {
  return sql::column(kCandidateColumns, name);
};

KeyCandidate read_candidate(const pqxx::row& row) {
  const pqxx::binarystring hash(row[candidate_at("secret_hash")]);
  const auto org_status =
      model::parse_organization_status(row[candidate_at("status")].as<std::string>());
  const auto kyb_status =
      model::parse_kyb_status(row[candidate_at("kyb_status")].as<std::string>());
  // The organizations table's CHECK constraints admit exactly the enums' names.
  if (!org_status || !kyb_status) throw std::logic_error("organization status outside model");
  return KeyCandidate{row[candidate_at("id")].as<std::string>(),
                      row[candidate_at("org_id")].as<std::string>(),
                      *model::parse_mode(row[candidate_at("mode")].as<std::string>()),
                      parse_text_array(row[candidate_at("scopes")]),
                      hash.str(),
                      *org_status,
                      *kyb_status};
}

}  // namespace

model::Result<std::vector<std::vector<KeyCandidate>>> find_by_prefixes(
    pg::Pool& pool, const std::vector<std::string>& prefixes) {
  using Found = std::vector<std::vector<KeyCandidate>>;
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<Found> {
    Found found(prefixes.size());
    for (const auto& row : pg::exec(tx, kFindByPrefixes, pg::sql_array(prefixes))) {
      const auto prefix = row[candidate_at("prefix")].as<std::string>();
      const auto candidate = read_candidate(row);
      for (std::size_t i = 0; i < prefixes.size(); ++i) {
        if (prefixes[i] == prefix) found[i].push_back(candidate);
      }
    }
    return found;
  });
}

model::Status record_last_used(pg::Pool& pool, const std::vector<LastUse>& uses) {
  if (uses.empty()) return model::ok_status();
  std::vector<std::string> ids;
  std::vector<long> times_us;
  for (const auto& [id, used_at] : uses) {
    ids.push_back(id);
    times_us.push_back(static_cast<long>(
        std::chrono::duration_cast<std::chrono::microseconds>(used_at.time_since_epoch()).count()));
  }
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kRecordLastUsed, pg::sql_array(ids), pg::sql_array(times_us));
    return model::ok_status();
  });
}

}  // namespace payrail::infra::store::api_keys
