#include "infra/store/sql/row_locks.h"

#include <map>

#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/deferred_writes.h"
#include "schemas/model/common/invariant.h"

namespace payrail::infra::store {
namespace {

// The rows one frame (a transaction attempt or a savepoint) locked ahead, by key.
class LockedRows : public pg::TransactionLocal {
 public:
  void before_commit(pqxx::work&) override {}
  void keep_into(pg::TransactionLocal& parent) override {
    static_cast<LockedRows&>(parent).rows.merge(rows);
  }
  std::map<std::string, pqxx::row> rows;
};

std::string locked_key(const RowLocks& locks, std::string_view id) {
  return std::string(locks.table) + ":" + std::string(id);
}

}  // namespace

void keep_locked_row(pqxx::work& tx, std::string key, pqxx::row row) {
  if (auto* locked = pg::transaction_local<LockedRows>(tx)) {
    locked->rows.insert_or_assign(std::move(key), row);
  }
}

std::optional<pqxx::row> take_locked_row(pqxx::work& tx, const std::string& key) {
  std::optional<pqxx::row> taken;
  pg::search_transaction_locals<LockedRows>(tx, [&](LockedRows& locked) {
    auto node = locked.rows.extract(key);
    if (!node.empty()) taken = std::move(node.mapped());
    return taken.has_value();
  });
  return taken;
}

void lock_all(pqxx::work& tx, const RowLocks& locks, const std::vector<std::string>& ids,
              const std::function<void(const pqxx::row&)>& each_row) {
  if (ids.empty()) return;
  model::invariant(locks.lock_all != nullptr, "a batch locks only tables with a lock_all statement");
  for (const auto& row : pg::exec(tx, *locks.lock_all, pg::sql_array(ids))) {
    keep_locked_row(tx, locked_key(locks, row[locks.id_column].as<std::string>()), row);
    if (each_row) each_row(row);
  }
}

std::optional<pqxx::row> lock_one(pqxx::work& tx, const RowLocks& locks, std::string_view id) {
  if (auto kept = take_locked_row(tx, locked_key(locks, id))) return kept;
  if (locks.deferred_changes != nullptr) flush_deferred(tx, *locks.deferred_changes);
  const auto rows = pg::exec(tx, locks.lock, std::string(id));
  if (rows.empty()) return std::nullopt;
  return rows[0];
}

}  // namespace payrail::infra::store
