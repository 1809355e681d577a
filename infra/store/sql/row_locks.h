// A worker's row locks, one statement per batch, and the rows a transaction locked ahead of their
// use.
#pragma once

#include <pqxx/pqxx>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store {

// Rows a transaction locked ahead of their use: a worker's batch locks the rows of all its
// messages with one statement, in key order, instead of one statement per message. Each row is
// handed out once, to the first take_locked_row() of its key in that transaction; it is current
// then, as nobody else can change a row this transaction holds locked. A later lookup of the key
// finds nothing and reads the row again, since the transaction may have changed it meanwhile.
// Rows kept inside a savepoint go with it, like its locks. Outside Pool::transact nothing is kept.
void keep_locked_row(pqxx::work& tx, std::string key, pqxx::row row);
std::optional<pqxx::row> take_locked_row(pqxx::work& tx, const std::string& key);

// `lock_all` locks the rows of `ids` with one statement (one text[] parameter, in id order, SKIP
// LOCKED; its column `id_column` is the row's id) and keeps them; `lock_one` hands out a kept row
// the first time its id is locked in the transaction, and otherwise runs `lock` (one id
// parameter). A row another transaction holds (an API cancel, an operator) is skipped rather than
// waited for: its message locks it when the batch comes to it, as it would without lock_all, so
// one contended row does not hold back the messages before it. `deferred_changes`, when the
// table's changes are deferred to the commit (defer_row), is written before `lock` reads a row
// again, so that the read sees them.
struct RowLocks {
  const char* table;
  const pg::Statement& lock;
  const pg::Statement* lock_all;  // null: the table's rows are locked one by one
  int id_column = 0;
  const pg::Statement* deferred_changes = nullptr;
};
// `each_row`, when given, is called with every row kept (a statement that joins another table's
// columns keeps them for that table's module too).
void lock_all(pqxx::work& tx, const RowLocks& locks, const std::vector<std::string>& ids,
              const std::function<void(const pqxx::row&)>& each_row = {});
std::optional<pqxx::row> lock_one(pqxx::work& tx, const RowLocks& locks, std::string_view id);

}  // namespace payrail::infra::store
