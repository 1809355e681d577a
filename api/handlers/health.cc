// GET /v1/health (no auth) and GET /v1/openapi.json (no auth).
#include "api/handlers/handlers.h"
#include "api/health_probe.h"
#include "api/services.h"
#include "schemas/model/common/json.h"
#include "schemas/model/contract/contracts.h"

namespace payrail::api {
namespace {

model::Result<HttpResponse> get_health(RequestContext& context) {
  const auto& probe = *context.services->health;
  const bool healthy = probe.postgres_ok() && probe.kafka_ok();
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  writer.StartObject();
  model::json::write_key_string(writer, "object", "health");
  model::json::write_key_string(writer, "status", healthy ? "ok" : "unavailable");
  model::json::write_key_string(writer, "postgres", probe.postgres_ok() ? "ok" : "unavailable");
  model::json::write_key_string(writer, "kafka", probe.kafka_ok() ? "ok" : "unavailable");
  writer.EndObject();
  return HttpResponse::json(healthy ? 200 : 503, buffer.GetString());
}

model::Result<HttpResponse> get_openapi(RequestContext&) {
  return HttpResponse::json(200, std::string(model::openapi_document()));
}

}  // namespace

void register_health_routes(Router& router) {
  router.add({"GET", "/v1/health", Access::open, "", sync(get_health)});
  router.add({"GET", "/v1/openapi.json", Access::open, "", sync(get_openapi)});
}

}  // namespace payrail::api
