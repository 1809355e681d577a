// The contract files of schemas/ as compiled into every binary.
#pragma once

#include <span>
#include <string_view>

#include "schemas/model/embedded_file.h"

namespace payrail::model {

// SQL migrations, sorted by file name (NNNN_name.sql), applied in that order.
std::span<const EmbeddedFile> sql_migrations();

// The OpenAPI 3.1 description served at GET /v1/openapi.json.
std::string_view openapi_document();

}  // namespace payrail::model
