// Small helpers shared by the handlers.
#pragma once

#include <functional>
#include <span>

#include "api/context.h"
#include "schemas/model/json.h"

namespace payrail::api {

// Parses the body as a JSON object and checks its members (unknown, duplicate, missing, type).
model::Result<rapidjson::Document> parse_body(const RequestContext& context,
                                              std::span<const model::json::Field> fields);

// For operations that take no body: none, or an empty JSON object; 400 otherwise.
model::Status check_no_body(const RequestContext& context);

// A response whose body is one JSON object written by `write`.
HttpResponse json_object_response(int status,
                                  const std::function<void(model::json::Writer&)>& write);

// Strings with bounded length (1..max) after JSON parsing; param names the field.
model::Status check_text(const rapidjson::Value& object, const char* field, std::size_t length_max,
                         bool required = true);

}  // namespace payrail::api
