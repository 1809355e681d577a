// GET /v1/events and POST /v1/events/{id}/redeliver (extensions, docs/api.md
// "Events and webhooks").
#include "infra/store/webhooks/events.h"
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/webhooks/webhook_deliveries.h"
#include "schemas/model/webhooks/event_types.h"

namespace payrail::api {
namespace {

namespace events = infra::store::events;

model::Error no_such_event() {
  return model::Error::make(model::ErrorCode::resource_missing, "No such event.");
}

// `payload` is the snapshot exactly as delivered: copied as raw JSON, never re-serialized.
void write_event(model::json::Writer& writer, const events::EventRow& event) {
  using namespace model::json;
  writer.StartObject();
  write_key_string(writer, "id", event.id);
  write_key_string(writer, "object", "event");
  write_key_string(writer, "type", event.type);
  write_key_string(writer, "resource_id", event.resource_id);
  write_key(writer, "sequence");
  writer.Int(event.sequence);
  write_key_string(writer, "created_at", event.created_at);
  write_key(writer, "payload");
  writer.RawValue(event.payload.data(), event.payload.size(), rapidjson::kObjectType);
  writer.EndObject();
}

model::Result<HttpResponse> list_events(RequestContext& context) {
  auto query = parse_list_query(
      context,
      {.listable = infra::store::Listable::events, .id_prefix = "evt_", .filters = {"type"}});
  if (!query.ok()) return query.error();
  auto type = context.request.query_value("type");
  if (!type.ok()) return type.error();
  if (*type && !model::is_subscribable_event(**type)) {
    return model::bad_request("type must be one of the event names.", "type");
  }
  const auto& principal = *context.api_key;
  auto page = events::list(*context.services->db, principal.org_id, principal.mode, *type, *query);
  if (!page.ok()) return page.error();
  return list_response<events::EventRow>(
      *page, [](model::json::Writer& writer, const auto& event) { write_event(writer, event); },
      [](const auto& event) { return event.id; });
}

model::Result<HttpResponse> redeliver_event(RequestContext& context) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  auto& db = *context.services->db;
  const auto& event_id = context.path_param("id");
  auto event = events::find(db, event_id);
  if (!event.ok()) return event.error();
  if (!*event || (*event)->org_id != principal.org_id || (*event)->mode != principal.mode) {
    return no_such_event();
  }
  auto scheduled =
      infra::store::webhook_deliveries::redeliver(db, principal.org_id, principal.mode, event_id);
  if (!scheduled.ok()) return scheduled.error();
  if (!*scheduled) return no_such_event();
  infra::log::info("webhooks.redelivery_requested", {{"event_id", event_id}});
  return json_object_response(202,
                              [&](model::json::Writer& writer) { write_event(writer, **event); });
}

}  // namespace

void register_event_routes(Router& router) {
  router.add({"GET", "/v1/events", Access::api_key, "webhooks:read", sync(list_events)});
  router.add({"POST", "/v1/events/{id}/redeliver", Access::api_key, "webhooks:write",
              sync(redeliver_event)});
}

}  // namespace payrail::api
