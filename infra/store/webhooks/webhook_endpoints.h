// Webhook endpoints (0003_webhooks.sql): at most 16 active per organization and mode, signing
// secrets stored only sealed, deletion cancels the endpoint's pending deliveries at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::webhook_endpoints {

constexpr std::size_t kActiveEndpointsMax = 16;  // per organization and mode

struct EndpointRow {
  std::string id;
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::string url;
  std::vector<std::string> events;
  bool active = true;
  std::string created_at;
};

// The create response is the only place the secret exists in clear.
struct CreatedEndpoint {
  EndpointRow row;
  std::string secret;
};

struct NewEndpoint {
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::string url;
  std::vector<std::string> events;
};

// Creates the endpoint with a fresh secret sealed under `encryption_key` (32 bytes), unless the
// organization already has kActiveEndpointsMax active endpoints in that mode.
model::Result<CreatedEndpoint> create(pg::Pool& pool, const NewEndpoint& endpoint,
                                      std::string_view encryption_key);
// The same inside the caller's transaction: the endpoint exists (and receives events appended
// by transactions that commit after it) once that transaction commits.
model::Result<CreatedEndpoint> create(pqxx::work& tx, const NewEndpoint& endpoint,
                                      std::string_view encryption_key);

// Endpoints not deleted, newest first.
model::Result<Page<EndpointRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                      const ListQuery& query);

// The organization's endpoint in that mode, deleted or not; nullopt for a foreign id.
model::Result<std::optional<EndpointRow>> find(pg::Pool& pool, std::string_view org_id,
                                               model::Mode mode, std::string_view endpoint_id);

// Deletes (deactivates) the endpoint and cancels its pending deliveries in one transaction.
// False when it does not exist for this organization and mode, or is already deleted.
model::Result<bool> remove(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                           std::string_view endpoint_id);

}  // namespace payrail::infra::store::webhook_endpoints
