#include "api/handlers/common.h"

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
  std::size_t characters = 0;
  for (const unsigned char c : *text) {
    if ((c & 0xC0) != 0x80) ++characters;  // count UTF-8 code points, not bytes
    if (c < 0x20)
      return model::bad_request(std::string(field) + " contains control characters.", field);
  }
  if ((required && characters == 0) || characters > length_max) {
    return model::bad_request(
        std::string(field) + " must be 1 to " + std::to_string(length_max) + " characters.", field);
  }
  return model::ok_status();
}

}  // namespace payrail::api
