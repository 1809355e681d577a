// Small helpers shared by the handlers.
#pragma once

#include <functional>
#include <span>

#include "api/context.h"
#include "infra/plumbing/crypto/data_key.h"
#include "schemas/model/common/json.h"

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

// The data key from configuration, with the previous one during a rotation. An invalid key is
// logged as `log_event` and answered 500 (the process was started with a broken setting).
model::Result<infra::crypto::DataKey> data_key(const RequestContext& context,
                                               const char* log_event);

}  // namespace payrail::api
