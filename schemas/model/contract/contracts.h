// The contract files of schemas/ as compiled into every binary.
#pragma once

#include <span>
#include <string_view>

#include "schemas/model/common/embedded_file.h"

namespace payrail::model {

// SQL migrations, sorted by file name (NNNN_name.sql), applied in that order.
std::span<const EmbeddedFile> sql_migrations();

// The parts of the OpenAPI description: schemas/openapi/openapi.json, then the fragments of
// schemas/openapi/paths/ in name order, then the components generated from the corridor table
// (schemas/model/contract/catalog_openapi.h).
std::span<const EmbeddedFile> openapi_parts();

// The OpenAPI 3.1 description served at GET /v1/openapi.json, assembled once from its parts
// (schemas/model/contract/openapi.h). Parts that do not assemble are a build defect: the process
// prints why and aborts (a unit test assembles them on every build).
std::string_view openapi_document();

}  // namespace payrail::model
