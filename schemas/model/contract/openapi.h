// The OpenAPI 3.1 description is kept in parts so that each resource's endpoints live in a file
// of their own: schemas/openapi/openapi.json (info, security, shared components) and one
// fragment per resource in schemas/openapi/paths/ ({"paths", "components", "webhooks"}).
// Assembling merges objects member by member, concatenates arrays, and refuses any other
// member defined twice, so two fragments can never silently overwrite each other.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "schemas/model/common/embedded_file.h"
#include "schemas/model/common/result.h"

namespace payrail::model {

// `files` is the base document first, then the fragments. Returns compact JSON.
Result<std::string> assemble_openapi(std::span<const EmbeddedFile> files);

}  // namespace payrail::model
