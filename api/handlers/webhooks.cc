// POST /v1/webhooks, GET /v1/webhooks, DELETE /v1/webhooks/{id},
// GET /v1/webhooks/{id}/deliveries (extension, docs/api.md "Events and webhooks").
#include <algorithm>
#include <array>

#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/adapters/webhooks/ssrf.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/webhooks/secrets.h"
#include "infra/store/webhooks/webhook_deliveries.h"
#include "infra/store/webhooks/webhook_endpoints.h"
#include "schemas/model/webhooks/event_types.h"

namespace payrail::api {
namespace {

namespace endpoints = infra::store::webhook_endpoints;
namespace deliveries = infra::store::webhook_deliveries;
namespace hooks = infra::webhooks;
using model::json::Field;
using model::json::Kind;

constexpr std::array kCreateFields{Field{"url", Kind::string, true},
                                   Field{"events", Kind::array, true}};
constexpr std::size_t kIdLengthMax = 64;

model::Error no_such_endpoint() {
  return model::Error::make(model::ErrorCode::resource_missing, "No such webhook endpoint.");
}

// Known names only, duplicates removed (first occurrence kept), at most 32 entries.
model::Result<std::vector<std::string>> read_events(const rapidjson::Value& body) {
  const auto& events = *model::json::member(body, "events");
  if (events.Empty()) return model::bad_request("events must name at least one event.", "events");
  if (events.Size() > model::kSubscribedEventsMax) {
    return model::bad_request("events may have at most 32 entries.", "events");
  }
  std::vector<std::string> subscribed;
  for (rapidjson::SizeType i = 0; i < events.Size(); ++i) {
    const auto& value = events[i];
    const auto name =
        value.IsString() ? std::string(value.GetString(), value.GetStringLength()) : std::string();
    if (!value.IsString() || !model::is_subscribable_event(name)) {
      return model::bad_request(
          "Unknown event name; the subscribable events are listed in the "
          "API reference.",
          "events." + std::to_string(i));
    }
    if (std::find(subscribed.begin(), subscribed.end(), name) == subscribed.end()) {
      subscribed.push_back(name);
    }
  }
  return subscribed;
}

// Live mode (and test mode unless the operator allows it) refuses hosts that resolve to
// loopback, private, link-local, multicast, unspecified or other non-global addresses. The
// delivery worker checks again on every attempt, on the address it connects to.
model::Status check_target(const RequestContext& context, const hooks::WebhookUrl& url) {
  const auto& config = context.services->config;
  if (hooks::private_targets_allowed(context.api_key->mode,
                                     config.webhook_allow_private_targets_in_test)) {
    return model::ok_status();
  }
  auto addresses = hooks::resolve_target(url, hooks::system_resolve);
  if (!addresses.ok()) return addresses.error();
  return hooks::check_addresses(*addresses, false);
}

void write_endpoint(model::json::Writer& writer, const endpoints::EndpointRow& endpoint,
                    const std::optional<std::string>& secret = std::nullopt) {
  using namespace model::json;
  writer.StartObject();
  write_key_string(writer, "id", endpoint.id);
  write_key_string(writer, "object", "webhook_endpoint");
  write_key_string(writer, "url", endpoint.url);
  write_key(writer, "events");
  writer.StartArray();
  for (const auto& event : endpoint.events) write_string(writer, event);
  writer.EndArray();
  write_key(writer, "active");
  writer.Bool(endpoint.active);
  write_key_string(writer, "created_at", endpoint.created_at);
  if (secret) write_key_string(writer, "secret", *secret);
  writer.EndObject();
}

model::Result<HttpResponse> create_endpoint(RequestContext& context) {
  auto body = parse_body(context, kCreateFields);
  if (!body.ok()) return body.error();
  const auto url_text = *model::json::string_member(*body, "url");
  auto url = hooks::parse_webhook_url(url_text);
  if (!url.ok()) return url.error();
  auto events = read_events(*body);
  if (!events.ok()) return events.error();
  if (auto status = check_target(context, *url); !status.ok()) return status.error();
  auto key = hooks::encryption_key_from_hex(context.services->config.webhook_encryption_key_hex);
  if (!key.ok()) {
    infra::log::error("webhooks.encryption_key_invalid", {{"error", key.error().message}});
    return model::Error::make(model::ErrorCode::internal_error, "Internal error.");
  }
  const auto& principal = *context.api_key;
  auto created = endpoints::create(*context.services->db,
                                   {principal.org_id, principal.mode, url->text, *events}, *key);
  if (!created.ok()) return created.error();
  infra::log::info("webhooks.endpoint_created",
                   {{"endpoint_id", created->row.id}, {"org_id", principal.org_id}});
  return json_object_response(201, [&](model::json::Writer& writer) {
    write_endpoint(writer, created->row, created->secret);
  });
}

model::Result<HttpResponse> list_endpoints(RequestContext& context) {
  auto query = parse_list_query(
      context, {.listable = infra::store::Listable::webhook_endpoints, .id_prefix = "whe_"});
  if (!query.ok()) return query.error();
  const auto& principal = *context.api_key;
  auto page = endpoints::list(*context.services->db, principal.org_id, principal.mode, *query);
  if (!page.ok()) return page.error();
  return list_response<endpoints::EndpointRow>(
      *page,
      [](model::json::Writer& writer, const auto& endpoint) { write_endpoint(writer, endpoint); },
      [](const auto& endpoint) { return endpoint.id; });
}

model::Result<HttpResponse> delete_endpoint(RequestContext& context) {
  const auto& principal = *context.api_key;
  auto deleted = endpoints::remove(*context.services->db, principal.org_id, principal.mode,
                                   context.path_param("id"));
  if (!deleted.ok()) return deleted.error();
  if (!*deleted) return no_such_endpoint();
  infra::log::info("webhooks.endpoint_deleted", {{"endpoint_id", context.path_param("id")}});
  return HttpResponse::no_content();
}

void write_attempt(model::json::Writer& writer, const deliveries::AttemptRow& attempt) {
  using namespace model::json;
  writer.StartObject();
  write_key(writer, "number");
  writer.Int(attempt.number);
  write_key_string(writer, "attempted_at", attempt.attempted_at);
  write_key(writer, "status_code");
  if (attempt.status_code) {
    writer.Int(*attempt.status_code);
  } else {
    writer.Null();
  }
  write_key(writer, "latency_ms");
  writer.Int64(attempt.latency_ms);
  write_key_nullable(writer, "error", attempt.error);
  writer.EndObject();
}

void write_delivery(model::json::Writer& writer, const deliveries::DeliveryRow& delivery) {
  using namespace model::json;
  writer.StartObject();
  write_key_string(writer, "id", delivery.id);
  write_key_string(writer, "object", "webhook_delivery");
  write_key_string(writer, "endpoint_id", delivery.endpoint_id);
  write_key_string(writer, "event_id", delivery.event_id);
  write_key_string(writer, "event_type", delivery.event_type);
  write_key_string(writer, "status", delivery.status);
  write_key(writer, "attempt_count");
  writer.Int(delivery.attempt_count);
  write_key_nullable(writer, "next_attempt_at", delivery.next_attempt_at);
  write_key_string(writer, "created_at", delivery.created_at);
  write_key(writer, "attempts");
  writer.StartArray();
  for (const auto& attempt : delivery.attempts) write_attempt(writer, attempt);
  writer.EndArray();
  writer.EndObject();
}

// The shared parser checks limit and unknown parameters; the cursor of this list is a delivery
// of this endpoint, which it does not know, so it is checked here.
model::Result<infra::store::ListQuery> deliveries_query(const RequestContext& context,
                                                        const std::string& endpoint_id) {
  auto cursor = context.request.query_value("starting_after");
  if (!cursor.ok()) return cursor.error();
  RequestContext without_cursor = context;
  auto& parameters = without_cursor.request.query;
  parameters.erase(
      std::remove_if(parameters.begin(), parameters.end(),
                     [](const auto& parameter) { return parameter.first == "starting_after"; }),
      parameters.end());
  auto query = parse_list_query(
      without_cursor, {.listable = infra::store::Listable::webhook_endpoints, .id_prefix = "whe_"});
  if (!query.ok() || !*cursor) return query;
  const auto& id = **cursor;
  const auto& principal = *context.api_key;
  auto exists = id.starts_with("whd_") && id.size() <= kIdLengthMax
                    ? deliveries::cursor_exists(*context.services->db, principal.org_id,
                                                principal.mode, endpoint_id, id)
                    : model::Result<bool>(false);
  if (!exists.ok()) return exists.error();
  if (!*exists) {
    return model::bad_request("starting_after does not name an item of this list.",
                              "starting_after");
  }
  query->starting_after = id;
  return query;
}

model::Result<HttpResponse> list_deliveries(RequestContext& context) {
  const auto& principal = *context.api_key;
  auto& db = *context.services->db;
  const auto& endpoint_id = context.path_param("id");
  auto endpoint = endpoints::find(db, principal.org_id, principal.mode, endpoint_id);
  if (!endpoint.ok()) return endpoint.error();
  if (!*endpoint) return no_such_endpoint();
  auto query = deliveries_query(context, endpoint_id);
  if (!query.ok()) return query.error();
  auto page =
      deliveries::list_for_endpoint(db, principal.org_id, principal.mode, endpoint_id, *query);
  if (!page.ok()) return page.error();
  return list_response<deliveries::DeliveryRow>(
      *page,
      [](model::json::Writer& writer, const auto& delivery) { write_delivery(writer, delivery); },
      [](const auto& delivery) { return delivery.id; });
}

}  // namespace

void register_webhook_routes(Router& router) {
  router.add({"POST", "/v1/webhooks", Access::api_key, "webhooks:write", sync(create_endpoint)});
  router.add({"GET", "/v1/webhooks", Access::api_key, "webhooks:read", sync(list_endpoints)});
  router.add(
      {"DELETE", "/v1/webhooks/{id}", Access::api_key, "webhooks:write", sync(delete_endpoint)});
  router.add({"GET", "/v1/webhooks/{id}/deliveries", Access::api_key, "webhooks:read",
              sync(list_deliveries)});
}

}  // namespace payrail::api
