#pragma once

#include "infra/store/organizations/api_keys.h"
#include "schemas/model/common/json.h"

namespace payrail::api {

// The API key resource; `secret` only in the create response.
void write_api_key(model::json::Writer& writer, const infra::store::api_keys::ApiKeyRow& key,
                   const std::optional<std::string>& secret = std::nullopt);

}  // namespace payrail::api
