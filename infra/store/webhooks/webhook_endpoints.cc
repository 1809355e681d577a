#include "infra/store/webhooks/webhook_endpoints.h"

#include "infra/plumbing/ids.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"
#include "infra/store/webhooks/secrets.h"

namespace payrail::infra::store::webhook_endpoints {
namespace {

// The columns read_row() maps, by name (sql::column).
constexpr auto kColumns =
    sql::concat("id, org_id, mode, url, events, active, ", sql::timestamp("created_at"));

constexpr auto kInsertSql = sql::concat(
    "INSERT INTO webhook_endpoints (id, org_id, mode, url, events, secret_ciphertext) VALUES ($1, "
    "$2, $3, $4, $5::text[], $6) RETURNING ",
    kColumns);
constexpr pg::Statement kInsert{"webhook_endpoints_insert", kInsertSql.c_str()};

// Serializes endpoint creation per organization so the limit cannot be raced past, and orders it
// against transactions that append events (they hold the row FOR KEY SHARE: see events.cc), so
// an event committed after the endpoint always reaches it.
constexpr pg::Statement kLockOrganization{"webhook_endpoints_lock_organization",
                                          "SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE"};

constexpr pg::Statement kCountActive{
    "webhook_endpoints_count_active",
    "SELECT count(*) FROM webhook_endpoints WHERE org_id = $1 AND mode = $2 AND active "
    "AND deleted_at IS NULL"};

constexpr auto kListSql =
    sql::concat("SELECT ", kColumns, " FROM webhook_endpoints WHERE deleted_at IS NULL AND",
                keyset_conditions("webhook_endpoints"), keyset_order("webhook_endpoints"));
constexpr pg::Statement kList{"webhook_endpoints_list", kListSql.c_str(), pg::Plan::custom};

constexpr auto kFindSql = sql::concat(
    "SELECT ", kColumns, " FROM webhook_endpoints WHERE id = $1 AND org_id = $2 AND mode = $3");
constexpr pg::Statement kFind{"webhook_endpoints_find", kFindSql.c_str()};

constexpr pg::Statement kDelete{
    "webhook_endpoints_delete",
    "UPDATE webhook_endpoints SET active = false, deleted_at = now() WHERE id = $1 AND "
    "org_id = $2 AND mode = $3 AND deleted_at IS NULL"};

// In the same transaction as the delete: queued retries die with the endpoint. An attempt that is
// in flight right now finds its delivery cancelled when it records its outcome.
constexpr pg::Statement kCancelPending{
    "webhook_endpoints_cancel_pending",
    "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, "
    "updated_at = now() WHERE endpoint_id = $1 AND status = 'pending'"};

EndpointRow read_row(const pqxx::row& row) {
  EndpointRow endpoint;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  endpoint.id = row[at("id")].as<std::string>();
  endpoint.org_id = row[at("org_id")].as<std::string>();
  endpoint.mode = *model::parse_mode(row[at("mode")].as<std::string>());
  endpoint.url = row[at("url")].as<std::string>();
  endpoint.events = parse_text_array(row[at("events")]);
  endpoint.active = row[at("active")].as<bool>();
  endpoint.created_at = row[at("created_at")].as<std::string>();
  return endpoint;
}

std::string mode_text(model::Mode mode) {
  return std::string(model::mode_name(mode));
}

}  // namespace

model::Result<CreatedEndpoint> create(pqxx::work& tx, const NewEndpoint& endpoint,
                                      std::string_view encryption_key) {
  CreatedEndpoint created;
  created.secret = webhooks::new_endpoint_secret();
  auto sealed = webhooks::seal_secret(encryption_key, created.secret);
  if (!sealed.ok()) return sealed.error();
  pg::exec(tx, kLockOrganization, endpoint.org_id);
  const auto active = pg::exec(tx, kCountActive, endpoint.org_id, mode_text(endpoint.mode));
  if (scalar<std::size_t>(active) >= kActiveEndpointsMax) {
    return model::Error::make(model::ErrorCode::resource_limit_reached,
                              "An organization can have at most 16 webhook endpoints per mode; "
                              "delete one first.");
  }
  const auto rows =
      pg::exec(tx, kInsert, new_id("whe_"), endpoint.org_id, mode_text(endpoint.mode), endpoint.url,
               pg::sql_array(endpoint.events), pqxx::binarystring(sealed->data(), sealed->size()));
  created.row = read_row(rows[0]);
  return created;
}

model::Result<CreatedEndpoint> create(pg::Pool& pool, const NewEndpoint& endpoint,
                                      std::string_view encryption_key) {
  return pool.transact([&](pqxx::work& tx) { return create(tx, endpoint, encryption_key); });
}

model::Result<Page<EndpointRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                      const ListQuery& query) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<EndpointRow>> {
    std::vector<EndpointRow> endpoints;
    for (const auto& row :
         pg::exec(tx, kList, std::string(org_id), mode_text(mode), query.limit + 1,
                  query.starting_after, query.created_gte, query.created_lte)) {
      endpoints.push_back(read_row(row));
    }
    return make_page(std::move(endpoints), query.limit);
  });
}

model::Result<std::optional<EndpointRow>> find(pg::Pool& pool, std::string_view org_id,
                                               model::Mode mode, std::string_view endpoint_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<EndpointRow>> {
    const auto rows =
        pg::exec(tx, kFind, std::string(endpoint_id), std::string(org_id), mode_text(mode));
    if (rows.empty()) return std::optional<EndpointRow>();
    return std::optional<EndpointRow>(read_row(rows[0]));
  });
}

model::Result<bool> remove(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                           std::string_view endpoint_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    const auto deleted =
        pg::exec(tx, kDelete, std::string(endpoint_id), std::string(org_id), mode_text(mode));
    if (deleted.affected_rows() != 1) return false;
    pg::exec(tx, kCancelPending, std::string(endpoint_id));
    return true;
  });
}

}  // namespace payrail::infra::store::webhook_endpoints
