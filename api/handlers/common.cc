#include "api/handlers/common.h"

#include "api/services.h"
#include "infra/plumbing/log/log.h"

namespace payrail::api {

model::Result<rapidjson::Document> parse_body(const RequestContext& context,
                                              std::span<const model::json::Field> fields) {
  const auto& body = context.request.body;
  auto document = model::json::parse_object(body.empty() ? std::string_view("{}") : body);
  if (!document.ok()) return document.error();
  if (auto checked = model::json::check_object(*document, fields); !checked.ok()) {
    return checked.error();
  }
  return document;
}

model::Status check_no_body(const RequestContext& context) {
  if (context.request.body.empty() || parse_body(context, {}).ok()) return model::ok_status();
  return model::bad_request("This operation takes no body.");
}

HttpResponse json_object_response(int status,
                                  const std::function<void(model::json::Writer&)>& write) {
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  write(writer);
  return HttpResponse::json(status, std::string(buffer.GetString(), buffer.GetSize()));
}

model::Status check_text(const rapidjson::Value& object, const char* field, std::size_t length_max,
                         bool required) {
  const auto text = model::json::string_member(object, field);
  if (!text) return model::ok_status();  // presence and type were checked by check_object
  return model::json::check_text(*text, field, length_max, required);
}

model::Result<infra::crypto::DataKey> data_key(const RequestContext& context,
                                               const char* log_event) {
  const auto& config = context.services->config;
  auto key = infra::crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                              config.webhook_encryption_key_previous_hex);
  if (!key.ok()) {
    infra::log::error(log_event, {{"error", key.error().message}});
    return model::Error::make(model::ErrorCode::internal_error, "An internal error occurred.");
  }
  return key;
}

}  // namespace payrail::api
