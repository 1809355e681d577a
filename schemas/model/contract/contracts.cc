#include "schemas/model/contract/contracts.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "schemas/model/contract/catalog_openapi.h"
#include "schemas/model/contract/openapi.h"

namespace payrail::generated {
extern const payrail::model::EmbeddedFile migration_files[];
extern const std::size_t migration_files_count;
extern const payrail::model::EmbeddedFile openapi_files[];
extern const std::size_t openapi_files_count;
}  // namespace payrail::generated

namespace payrail::model {

std::span<const EmbeddedFile> sql_migrations() {
  return {generated::migration_files, generated::migration_files_count};
}

std::span<const EmbeddedFile> openapi_parts() {
  // The files of schemas/openapi/, then the components generated from the corridor table.
  static const std::string catalog_components = catalog_openapi_fragment();
  static const std::vector<EmbeddedFile> parts = [] {
    std::vector<EmbeddedFile> files(generated::openapi_files,
                                    generated::openapi_files + generated::openapi_files_count);
    files.push_back({"generated:catalog_components.json", catalog_components});
    return files;
  }();
  return parts;
}

std::string_view openapi_document() {
  static const std::string document = [] {
    auto assembled = assemble_openapi(openapi_parts());
    if (!assembled.ok()) {
      std::fprintf(stderr, "%s\n", assembled.error().message.c_str());
      std::abort();
    }
    return std::move(assembled.value());
  }();
  return document;
}

}  // namespace payrail::model
