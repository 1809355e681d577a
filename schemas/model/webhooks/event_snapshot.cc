#include "schemas/model/webhooks/event_snapshot.h"

namespace payrail::model {

std::string event_snapshot_json(std::string_view event_type, std::string_view event_id,
                                std::string_view occurred_at, int sequence,
                                const std::function<void(json::Writer&)>& write_members) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  writer.StartObject();
  json::write_key_string(writer, "event", event_type);
  json::write_key_string(writer, "event_id", event_id);
  json::write_key_string(writer, "occurred_at", occurred_at);
  json::write_key(writer, "sequence");
  writer.Int(sequence);
  write_members(writer);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace payrail::model
