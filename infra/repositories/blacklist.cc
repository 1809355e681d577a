#include "infra/repositories/blacklist.h"

#include <algorithm>

#include "infra/repositories/sql.h"

namespace payrail::infra::repositories::blacklist {
namespace {

constexpr pg::Statement kAdd{
    "blacklist_add",
    "INSERT INTO screening_blacklist (kind, value, normalized, reason) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (kind, normalized) DO UPDATE SET reason = EXCLUDED.reason"};
constexpr pg::Statement kRemove{
    "blacklist_remove", "DELETE FROM screening_blacklist WHERE kind = $1 AND normalized = $2"};
constexpr pg::Statement kList{
    "blacklist_list", "SELECT id, kind, value, coalesce(reason, ''), " PAYRAIL_TIMESTAMP(
                          "created_at") " FROM screening_blacklist ORDER BY id LIMIT 10000"};
constexpr pg::Statement kContains{
    "blacklist_contains", "SELECT 1 FROM screening_blacklist WHERE kind = $1 AND normalized = $2"};

constexpr pg::Statement kRevision{"blacklist_revision",
                                  "SELECT coalesce(max(id), 0), count(*) FROM screening_blacklist"};
// One more than the caller keeps, to know there are too many.
constexpr pg::Statement kEntries{
    "blacklist_entries",
    "SELECT id, kind, normalized FROM screening_blacklist ORDER BY id LIMIT $1"};

// Every entry, with the revision of what was read (one statement, one snapshot); nullopt when
// there are more than `entries_max`.
std::optional<Entries> read_entries(pqxx::transaction_base& tx, long entries_max) {
  const auto rows = pg::exec(tx, kEntries, entries_max + 1);
  if (static_cast<long>(rows.size()) > entries_max) return std::nullopt;
  Entries read;
  for (const auto& row : rows) {
    read.revision.max_id = std::max(read.revision.max_id, row[0].as<long>());
    read.entries.emplace(row[1].as<std::string>(), row[2].as<std::string>());
  }
  read.revision.count = static_cast<long>(rows.size());
  return read;
}

}  // namespace

model::Status add(pg::Pool& pool, const std::string& kind, const std::string& value,
                  const std::string& normalized, const std::string& reason) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kAdd, kind, value, normalized, reason);
    return model::ok_status();
  });
}

model::Result<bool> remove(pg::Pool& pool, const std::string& kind, const std::string& normalized) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return pg::exec(tx, kRemove, kind, normalized).affected_rows() > 0;
  });
}

model::Result<std::vector<Entry>> list(pg::Pool& pool) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<Entry>> {
    std::vector<Entry> entries;
    for (const auto& row : pg::exec(tx, kList)) {
      entries.push_back({row[0].as<long>(), row[1].as<std::string>(), row[2].as<std::string>(),
                         row[3].as<std::string>(), row[4].as<std::string>()});
    }
    return entries;
  });
}

bool contains(pqxx::work& tx, const std::string& kind, const std::string& normalized) {
  return !pg::exec(tx, kContains, kind, normalized).empty();
}

std::shared_ptr<const Entries> Cache::current(pqxx::transaction_base& tx) {
  const auto row = pg::exec(tx, kRevision)[0];
  const Revision now{row[0].as<long>(), row[1].as<long>()};
  std::lock_guard lock(mutex_);
  if (revision_ == now) return entries_;
  if (now.count > entries_max_) {
    revision_ = now;
    entries_.reset();
    return entries_;
  }
  // Changed since the revision was read, maybe: the entries carry their own revision, and a
  // different one is read again at the next call.
  auto read = read_entries(tx, entries_max_);
  revision_ = read ? read->revision : now;
  entries_ = read ? std::make_shared<const Entries>(std::move(*read)) : nullptr;
  return entries_;
}

}  // namespace payrail::infra::repositories::blacklist
