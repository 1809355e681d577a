// JSON in and out. Requests are parsed with hard limits (RapidJSON 1.1.0 recurses on nesting, so
// depth is checked by a scan before parsing, and parsing is iterative). Numbers are never used for
// money: amounts are strings and a number where a string is expected is a type error.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "schemas/model/common/result.h"

namespace payrail::model::json {

constexpr std::size_t kDepthMax = 32;
constexpr std::size_t kMetadataKeysMax = 50;
constexpr std::size_t kMetadataKeyLengthMax = 40;
constexpr std::size_t kMetadataValueLengthMax = 500;

// Parses a request body: a JSON object, nesting at most depth_max, valid UTF-8.
Result<rapidjson::Document> parse_object(std::string_view text, std::size_t depth_max = kDepthMax);

// Deepest nesting of arrays/objects in `text`, ignoring brackets inside strings.
std::size_t nesting_depth(std::string_view text);

enum class Kind { string, object, array, boolean, integer, any };

struct Field {
  std::string_view name;
  Kind kind;
  bool required;
};

// "destination" + "address" -> "destination.address"; "" + "amount" -> "amount".
std::string child_path(std::string_view path, std::string_view name);

// Rejects unknown and duplicate members, missing required ones and wrong types; the error's
// `param` names the offending field by its dotted path.
Status check_object(const rapidjson::Value& object, std::span<const Field> fields,
                    std::string_view path = "");

// A client string of 1 (0 when not required) to `length_max` characters (code points, not bytes)
// without control characters (C0, DEL and C1: text::is_control); bad_request naming `param`
// otherwise. `text` is valid UTF-8 (every JSON string is checked when the body is parsed).
Status check_text(std::string_view text, std::string_view param, std::size_t length_max,
                  bool required = true);

// Metadata: an object of at most 50 string values; keys 1-40 characters, values <= 500.
Status check_metadata(const rapidjson::Value& metadata, std::string_view param = "metadata");

std::optional<std::string_view> string_member(const rapidjson::Value& object, const char* name);
const rapidjson::Value* member(const rapidjson::Value& object, const char* name);

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_string(Writer& writer, std::string_view text);
void write_key_string(Writer& writer, std::string_view key, std::string_view text);
void write_key_nullable(Writer& writer, std::string_view key,
                        const std::optional<std::string>& text);
void write_key(Writer& writer, std::string_view key);
// Copies a parsed value (for echoing metadata).
void write_value(Writer& writer, const rapidjson::Value& value);
std::string serialize(const rapidjson::Value& value);
// Compact JSON with object members sorted by name (recursively): equal documents give equal text.
std::string canonical(const rapidjson::Value& value);

}  // namespace payrail::model::json
