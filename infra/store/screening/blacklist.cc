#include "infra/store/screening/blacklist.h"

#include <algorithm>

#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"
#include "schemas/model/screening/name_key.h"

namespace payrail::infra::store::blacklist {
namespace {

constexpr pg::Statement kAdd{
    "blacklist_add",
    "INSERT INTO screening_blacklist (kind, value, normalized, reason, key_version) "
    "VALUES ($1, $2, $3, $4, $5) "
    "ON CONFLICT (kind, normalized) DO UPDATE SET reason = EXCLUDED.reason"};
constexpr pg::Statement kRemove{
    "blacklist_remove", "DELETE FROM screening_blacklist WHERE kind = $1 AND normalized = $2"};
// The columns list() maps, by name (sql::column).
constexpr auto kListColumns =
    sql::concat("id, kind, value, coalesce(reason, '') AS reason, ", sql::timestamp("created_at"));
constexpr auto kListSql =
    sql::concat("SELECT ", kListColumns, " FROM screening_blacklist ORDER BY id LIMIT 10000");
constexpr pg::Statement kList{"blacklist_list", kListSql.c_str()};
constexpr pg::Statement kContains{
    "blacklist_contains", "SELECT 1 FROM screening_blacklist WHERE kind = $1 AND normalized = $2"};

// The columns Cache::current() reads, by name.
constexpr sql::Text kRevisionColumns = "coalesce(max(id), 0) AS max_id, count(*) AS count";
constexpr auto kRevisionSql = sql::concat("SELECT ", kRevisionColumns, " FROM screening_blacklist");
constexpr pg::Statement kRevision{"blacklist_revision", kRevisionSql.c_str()};
// One more than the caller keeps, to know there are too many. A name's value only when its key
// is of another version.
constexpr sql::Text kEntryColumns =
    "id, kind, normalized, CASE WHEN kind = 'name' AND key_version <> $2 THEN value END AS "
    "stale_value";
constexpr auto kEntriesSql =
    sql::concat("SELECT ", kEntryColumns, " FROM screening_blacklist ORDER BY id LIMIT $1");
constexpr pg::Statement kEntries{"blacklist_entries", kEntriesSql.c_str()};

// Any number; serializes re-keying across processes for the rest of the transaction.
constexpr pg::Statement kRekeyLock{"blacklist_rekey_lock", "SELECT pg_advisory_xact_lock(7255042)"};
// The columns rekey_names() reads, by name.
constexpr sql::Text kStaleColumns = "id, value, normalized";
constexpr auto kStaleNamesSql =
    sql::concat("SELECT ", kStaleColumns,
                " FROM screening_blacklist WHERE kind = 'name' AND key_version <> $1 ORDER BY id");
constexpr pg::Statement kStaleNames{"blacklist_stale_names", kStaleNamesSql.c_str()};
// While re-keying, stale rows hold a placeholder key (never a name's key: ':' separates words),
// so that one's new key never collides with another's old one.
constexpr pg::Statement kParkStale{
    "blacklist_park_stale",
    "UPDATE screening_blacklist SET normalized = 'rekeying:' || id WHERE kind = 'name' "
    "AND key_version <> $1"};
constexpr pg::Statement kKeyTaken{
    "blacklist_key_taken",
    "SELECT 1 FROM screening_blacklist WHERE kind = 'name' AND normalized = $1 AND id <> $2"};
constexpr pg::Statement kRekey{
    "blacklist_rekey",
    "UPDATE screening_blacklist SET normalized = $2, key_version = $3 WHERE id = $1"};
constexpr pg::Statement kRemoveById{"blacklist_remove_by_id",
                                    "DELETE FROM screening_blacklist WHERE id = $1"};

// Today's key of a name stored under another version: from its value, unless that has no
// letters under today's rules (then the stored key, which no name has either).
std::string current_key(const std::string& value, const std::string& stored_key) {
  auto key = model::normalize_name(value);
  return key.empty() ? stored_key : key;
}

std::string key_of(const std::string& kind, const std::string& normalized,
                   const std::optional<std::string>& stale_value) {
  if (kind == "name" && stale_value) return current_key(*stale_value, normalized);
  return normalized;
}

// Every entry, with the revision of what was read (one statement, one snapshot); nullopt when
// there are more than `entries_max`.
std::optional<Entries> read_entries(pqxx::transaction_base& tx, long entries_max) {
  const auto rows = pg::exec(tx, kEntries, entries_max + 1, model::name_key_version());
  if (static_cast<long>(rows.size()) > entries_max) return std::nullopt;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kEntryColumns, name);
  };
  Entries read;
  for (const auto& row : rows) {
    read.revision.max_id = std::max(read.revision.max_id, row[at("id")].as<long>());
    const auto kind = row[at("kind")].as<std::string>();
    read.entries.emplace(kind, key_of(kind, row[at("normalized")].as<std::string>(),
                                      optional_text(row[at("stale_value")])));
  }
  read.revision.count = static_cast<long>(rows.size());
  return read;
}

}  // namespace

model::Status add(pg::Pool& pool, const std::string& kind, const std::string& value,
                  const std::string& normalized, const std::string& reason) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kAdd, kind, value, normalized, reason, model::name_key_version());
    return model::ok_status();
  });
}

model::Result<Rekeyed> rekey_names(pg::Pool& pool) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Rekeyed> {
    const auto& version = model::name_key_version();
    Rekeyed done;
    if (pg::exec(tx, kStaleNames, version).empty()) return done;
    pg::exec(tx, kRekeyLock);
    const auto stale = pg::exec(tx, kStaleNames, version);  // again, under the lock
    pg::exec(tx, kParkStale, version);
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kStaleColumns, name);
    };
    for (const auto& row : stale) {
      const auto id = row[at("id")].as<long>();
      const auto key =
          current_key(row[at("value")].as<std::string>(), row[at("normalized")].as<std::string>());
      if (!pg::exec(tx, kKeyTaken, key, id).empty()) {
        pg::exec(tx, kRemoveById, id);
        ++done.merged;
      } else {
        pg::exec(tx, kRekey, id, key, version);
        ++done.rekeyed;
      }
    }
    return done;
  });
}

model::Result<bool> remove(pg::Pool& pool, const std::string& kind, const std::string& normalized) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    return pg::exec(tx, kRemove, kind, normalized).affected_rows() > 0;
  });
}

model::Result<std::vector<Entry>> list(pg::Pool& pool) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<Entry>> {
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kListColumns, name);
    };
    std::vector<Entry> entries;
    for (const auto& row : pg::exec(tx, kList)) {
      entries.push_back({row[at("id")].as<long>(), row[at("kind")].as<std::string>(),
                         row[at("value")].as<std::string>(), row[at("reason")].as<std::string>(),
                         row[at("created_at")].as<std::string>()});
    }
    return entries;
  });
}

bool contains(pqxx::work& tx, const std::string& kind, const std::string& normalized) {
  return !pg::exec(tx, kContains, kind, normalized).empty();
}

std::shared_ptr<const Entries> Cache::current(pqxx::transaction_base& tx) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kRevisionColumns, name);
  };
  const auto row = pg::exec(tx, kRevision)[0];
  const Revision now{row[at("max_id")].as<long>(), row[at("count")].as<long>()};
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

}  // namespace payrail::infra::store::blacklist
