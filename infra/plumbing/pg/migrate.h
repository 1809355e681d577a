#pragma once

#include <pqxx/pqxx>

#include "schemas/model/common/result.h"

namespace payrail::infra::pg {

// Applies the embedded migrations (schemas/migrations) in file-name order, each in its own
// transaction, recorded in schema_migrations with a checksum. An applied migration whose text
// changed is an error: migrations are never edited after they land. Safe to run concurrently
// from several processes (an advisory lock serializes them).
model::Status apply_migrations(pqxx::connection& connection);

}  // namespace payrail::infra::pg
