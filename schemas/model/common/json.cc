#include "schemas/model/common/json.h"

#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "schemas/model/common/text.h"

namespace payrail::model::json {
namespace {

// Every string of a parsed document, member names included, is checked once here, so no handler
// can store a lone surrogate (RapidJSON decodes "\udc00" to bytes that are not UTF-8) or a NUL
// that a C string would silently truncate at. Numbers beyond a double's range (RapidJSON 1.1.0
// reads 1e400 as infinity, which its writer cannot print) are refused too.
Status check_values(const rapidjson::Value& value, const std::string& path) {
  if (value.IsString()) {
    return text::check_clean({value.GetString(), value.GetStringLength()}, path);
  }
  if (value.IsDouble() && !std::isfinite(value.GetDouble())) {
    return bad_request(path + " is a number out of range.", path);
  }
  if (value.IsObject()) {
    for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) {
      const std::string_view name(it->name.GetString(), it->name.GetStringLength());
      const auto member_path = child_path(path, text::sanitized(name));
      if (auto status = text::check_clean(name, member_path); !status.ok()) return status;
      if (auto status = check_values(it->value, member_path); !status.ok()) return status;
    }
  } else if (value.IsArray()) {
    for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
      if (auto status = check_values(value[i], child_path(path, std::to_string(i))); !status.ok()) {
        return status;
      }
    }
  }
  return ok_status();
}

bool kind_matches(const rapidjson::Value& value, Kind kind) {
  switch (kind) {
    case Kind::string:
      return value.IsString();
    case Kind::object:
      return value.IsObject();
    case Kind::array:
      return value.IsArray();
    case Kind::boolean:
      return value.IsBool();
    case Kind::integer:
      return value.IsInt64();
    case Kind::any:
      return true;
  }
  return false;
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::string:
      return "a string";
    case Kind::object:
      return "an object";
    case Kind::array:
      return "an array";
    case Kind::boolean:
      return "a boolean";
    case Kind::integer:
      return "an integer";
    case Kind::any:
      return "a value";
  }
  return "a value";
}

}  // namespace

std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<rapidjson::Document> parse_object(std::string_view text, std::size_t depth_max) {
  if (nesting_depth(text) > depth_max) {
    return bad_request("The request body nests deeper than " + std::to_string(depth_max) +
                       " levels.");
  }
  // RapidJSON reads a NUL byte as the end of the input, which would accept `{...}\0anything`;
  // JSON text never contains one (inside strings it must be escaped).
  if (text.find('\0') != std::string_view::npos) {
    return bad_request("The request body is not valid JSON: it contains a NUL byte.");
  }
  rapidjson::Document document;
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
  document.Parse<kFlags>(text.data(), text.size());
  if (document.HasParseError()) {
    return bad_request(std::string("The request body is not valid JSON: ") +
                       rapidjson::GetParseError_En(document.GetParseError()) + " (at byte " +
                       std::to_string(document.GetErrorOffset()) + ").");
  }
  if (!document.IsObject()) return bad_request("The request body must be a JSON object.");
  if (auto status = check_values(document, ""); !status.ok()) return status.error();
  return document;
}

std::string child_path(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  std::string joined(path);
  joined += '.';
  joined += name;
  return joined;
}

Status check_object(const rapidjson::Value& object, std::span<const Field> fields,
                    std::string_view path) {
  std::set<std::string_view> seen;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    const auto field = std::find_if(fields.begin(), fields.end(),
                                    [&](const Field& candidate) { return candidate.name == name; });
    if (field == fields.end()) {
      return bad_request("Unknown field: " + child_path(path, name) + ".", child_path(path, name));
    }
    if (!seen.insert(name).second) {
      return bad_request("Duplicate field: " + child_path(path, name) + ".",
                         child_path(path, name));
    }
    if (!kind_matches(it->value, field->kind)) {
      return bad_request(
          child_path(path, name) + " must be " + std::string(kind_name(field->kind)) + ".",
          child_path(path, name));
    }
  }
  for (const auto& field : fields) {
    if (field.required && !seen.contains(field.name)) {
      return bad_request("Missing required field: " + child_path(path, field.name) + ".",
                         child_path(path, field.name));
    }
  }
  return ok_status();
}

Status check_text(std::string_view text, std::string_view param, std::size_t length_max,
                  bool required) {
  if (text::has_control(text)) {
    return bad_request(std::string(param) + " contains control characters.", std::string(param));
  }
  const auto characters = text::character_count(text);
  if ((required && characters == 0) || characters > length_max) {
    return bad_request(
        std::string(param) + " must be 1 to " + std::to_string(length_max) + " characters.",
        std::string(param));
  }
  return ok_status();
}

Status check_metadata(const rapidjson::Value& metadata, std::string_view param) {
  if (!metadata.IsObject()) return bad_request("metadata must be an object.", std::string(param));
  if (metadata.MemberCount() > kMetadataKeysMax) {
    return bad_request("metadata has more than 50 keys.", std::string(param));
  }
  std::set<std::string_view> seen;
  for (auto it = metadata.MemberBegin(); it != metadata.MemberEnd(); ++it) {
    const std::string_view key(it->name.GetString(), it->name.GetStringLength());
    const auto key_param = child_path(param, key);
    if (key.empty() || text::character_count(key) > kMetadataKeyLengthMax) {
      return bad_request("metadata keys must be 1 to 40 characters.", key_param);
    }
    if (!seen.insert(key).second) return bad_request("Duplicate metadata key.", key_param);
    if (!it->value.IsString()) return bad_request("metadata values must be strings.", key_param);
    const std::string_view value(it->value.GetString(), it->value.GetStringLength());
    if (text::character_count(value) > kMetadataValueLengthMax) {
      return bad_request("metadata values must be at most 500 characters.", key_param);
    }
  }
  return ok_status();
}

const rapidjson::Value* member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string_view> string_member(const rapidjson::Value& object, const char* name) {
  const auto* value = member(object, name);
  if (value == nullptr || !value->IsString()) return std::nullopt;
  return std::string_view(value->GetString(), value->GetStringLength());
}

void write_string(Writer& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_key(Writer& writer, std::string_view key) {
  writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void write_key_string(Writer& writer, std::string_view key, std::string_view text) {
  write_key(writer, key);
  write_string(writer, text);
}

void write_key_nullable(Writer& writer, std::string_view key,
                        const std::optional<std::string>& text) {
  write_key(writer, key);
  if (text) {
    write_string(writer, *text);
  } else {
    writer.Null();
  }
}

void write_value(Writer& writer, const rapidjson::Value& value) {
  value.Accept(writer);
}

std::string serialize(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

namespace {

void write_canonical(Writer& writer, const rapidjson::Value& value) {
  if (value.IsObject()) {
    std::vector<const rapidjson::Value::Member*> members;
    for (auto it = value.MemberBegin(); it != value.MemberEnd(); ++it) members.push_back(&*it);
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
      return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
             std::string_view(b->name.GetString(), b->name.GetStringLength());
    });
    writer.StartObject();
    for (const auto* member : members) {
      writer.Key(member->name.GetString(), member->name.GetStringLength());
      write_canonical(writer, member->value);
    }
    writer.EndObject();
  } else if (value.IsArray()) {
    writer.StartArray();
    for (const auto& element : value.GetArray()) write_canonical(writer, element);
    writer.EndArray();
  } else {
    value.Accept(writer);
  }
}

}  // namespace

std::string canonical(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  write_canonical(writer, value);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace payrail::model::json
