#include "schemas/model/contracts.h"

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

std::string_view openapi_document() {
  return generated::openapi_files[0].content;
}

}  // namespace payrail::model
