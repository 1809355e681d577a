// POST /v1/collections, GET /v1/collections, GET /v1/collections/{id},
// POST /v1/collections/{id}/cancel, and the test helpers
// POST /v1/test-helpers/collections/{id}/receive | fail | expire.
#include "infra/store/collections/collections.h"
#include "api/handlers/collection_create.h"
#include "api/handlers/collection_test_helpers.h"
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/store/outbox/relay.h"

namespace payrail::api {
namespace {

namespace collections = infra::store::collections;

model::Result<HttpResponse> get_collection(RequestContext& context) {
  const auto& principal = *context.api_key;
  const auto& id = context.path_param("id");
  return context.services->db->transact([&](pqxx::work& tx) -> model::Result<HttpResponse> {
    const auto found = collections::find(tx, principal.org_id, principal.mode, id);
    if (!found)
      return model::Error::make(model::ErrorCode::resource_missing, "No such collection.");
    const auto unapplied = collections::unapplied_payments(tx, id);
    return HttpResponse::json(200, model::collection_json(found->resource, unapplied));
  });
}

model::Result<HttpResponse> list_collections(RequestContext& context) {
  auto query = parse_list_query(context, {.listable = infra::store::Listable::collections,
                                          .id_prefix = "col_",
                                          .created_range = true,
                                          .filters = {"status"}});
  if (!query.ok()) return query.error();
  auto status = context.request.query_value("status");
  if (!status.ok()) return status.error();
  if (*status && !model::parse_collection_status(**status)) {
    return model::bad_request("status must be one of the collection statuses.", "status");
  }
  const auto& principal = *context.api_key;
  auto page =
      collections::list(*context.services->db, principal.org_id, principal.mode, *status, *query);
  if (!page.ok()) return page.error();
  return list_response<collections::CollectionRow>(
      *page,
      [](model::json::Writer& writer, const collections::CollectionRow& collection) {
        model::write_collection_list_item(writer, collection.resource);
      },
      [](const collections::CollectionRow& collection) { return collection.resource.id; });
}

model::Result<HttpResponse> cancel_collection(RequestContext& context) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  auto cancelled = collections::cancel(*context.services->db, principal.org_id, principal.mode,
                                       context.path_param("id"), principal.key_id);
  if (!cancelled.ok()) return cancelled.error();
  context.services->relay->wake();
  return HttpResponse::json(200, model::collection_json(cancelled->resource));
}

}  // namespace

void register_collection_routes(Router& router) {
  router.add(
      {"POST", "/v1/collections", Access::api_key, "collections:write", create_collection});
  router.add(
      {"GET", "/v1/collections", Access::api_key, "collections:read", sync(list_collections)});
  router.add(
      {"GET", "/v1/collections/{id}", Access::api_key, "collections:read", sync(get_collection)});
  router.add({"POST", "/v1/collections/{id}/cancel", Access::api_key, "collections:write",
              sync(cancel_collection)});
  router.add({"POST", "/v1/test-helpers/collections/{id}/receive", Access::api_key,
              "collections:write", sync(test_helper_receive)});
  router.add({"POST", "/v1/test-helpers/collections/{id}/fail", Access::api_key,
              "collections:write", sync(test_helper_fail)});
  router.add({"POST", "/v1/test-helpers/collections/{id}/expire", Access::api_key,
              "collections:write", sync(test_helper_expire)});
}

}  // namespace payrail::api
