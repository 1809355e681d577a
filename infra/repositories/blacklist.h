// The internal screening blacklist, managed by operators (payrail blacklist-*), both modes.
#pragma once

#include <pqxx/pqxx>

#include <string>
#include <vector>

#include "infra/pg/pool.h"

namespace payrail::infra::repositories::blacklist {

struct Entry {
  long id = 0;
  std::string kind;  // address | name
  std::string value;
  std::string reason;
  std::string created_at;
};

// `normalized` is the screening form (lower-case for EVM addresses, normalized names).
model::Status add(pg::Pool& pool, const std::string& kind, const std::string& value,
                  const std::string& normalized, const std::string& reason);
model::Result<bool> remove(pg::Pool& pool, const std::string& kind, const std::string& normalized);
model::Result<std::vector<Entry>> list(pg::Pool& pool);

bool contains(pqxx::work& tx, const std::string& kind, const std::string& normalized);

}  // namespace payrail::infra::repositories::blacklist
