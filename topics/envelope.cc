#include "topics/envelope.h"

#include <array>

#include "schemas/model/common/json.h"

namespace payrail::topics {
namespace {

constexpr std::size_t kEnvelopeBytesMax = 4096;

}  // namespace

std::string encode(const Envelope& envelope) {
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  writer.StartObject();
  model::json::write_key_string(writer, "message_id", envelope.message_id);
  model::json::write_key_string(writer, "type", envelope.type);
  model::json::write_key_string(writer, "org_id", envelope.org_id);
  model::json::write_key_string(writer, "mode", model::mode_name(envelope.mode));
  model::json::write_key_string(writer, "resource_id", envelope.resource_id);
  model::json::write_key_string(writer, "created_at", envelope.created_at);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

model::Result<Envelope> decode(std::string_view bytes) {
  if (bytes.size() > kEnvelopeBytesMax) return model::bad_request("message too large");
  auto document = model::json::parse_object(bytes, 2);
  if (!document.ok()) return document.error();
  using model::json::Field;
  using model::json::Kind;
  static constexpr std::array kFields{
      Field{"message_id", Kind::string, true},  Field{"type", Kind::string, true},
      Field{"org_id", Kind::string, true},      Field{"mode", Kind::string, true},
      Field{"resource_id", Kind::string, true}, Field{"created_at", Kind::string, true}};
  if (auto checked = model::json::check_object(*document, kFields); !checked.ok()) {
    return checked.error();
  }
  const auto mode = model::parse_mode(*model::json::string_member(*document, "mode"));
  if (!mode) return model::bad_request("unknown mode", "mode");
  Envelope envelope;
  envelope.message_id = *model::json::string_member(*document, "message_id");
  envelope.type = *model::json::string_member(*document, "type");
  envelope.org_id = *model::json::string_member(*document, "org_id");
  envelope.mode = *mode;
  envelope.resource_id = *model::json::string_member(*document, "resource_id");
  envelope.created_at = *model::json::string_member(*document, "created_at");
  return envelope;
}

}  // namespace payrail::topics
