// Data-key commands: re-sealing every stored sealed value with the current key, the step of a
// key rotation that makes the previous key unnecessary (docs/operations.md).
#include <pqxx/pqxx>

#include <cstdio>

#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/crypto/sealed_columns.h"
#include "infra/programs/cli/command_table.h"

namespace payrail::infra::cli {
namespace {

constexpr int kBatchMax = 200;

struct Resealed {
  long values = 0;
  long unreadable = 0;  // opened by neither key: left as they are
};

// One batch after `after` (key order), each value re-sealed in the same transaction as it was
// read (FOR UPDATE): a concurrent writer waits, nothing is lost. Returns the last key seen.
model::Result<std::string> reseal_batch(pg::Pool& pool, const crypto::DataKey& key,
                                        const crypto::SealedColumn& column,
                                        const std::string& after, Resealed& counts) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::string> {
    const auto table = tx.quote_name(column.table);
    const std::string id = std::string("(") + column.key_sql + ")";
    const auto sealed = tx.quote_name(column.sealed_column);
    // Named columns: the key is an expression, the sealed column's name varies by table.
    const auto rows = tx.exec_params(
        "SELECT " + id + " AS row_key, " + sealed + " AS sealed_value FROM " + table + " WHERE " +
            sealed + " IS NOT NULL AND " + id + " > $1 ORDER BY " + id + " LIMIT $2 FOR UPDATE",
        after, kBatchMax);
    std::string last;
    for (const auto& row : rows) {
      last = row["row_key"].as<std::string>();
      const pqxx::binarystring stored(row["sealed_value"]);
      auto opened = key.open(stored.str());
      if (!opened.ok()) {
        ++counts.unreadable;
        continue;
      }
      auto resealed = key.seal(*opened);
      if (!resealed.ok()) return resealed.error();
      tx.exec_params("UPDATE " + table + " SET " + sealed + " = $2 WHERE " + id + " = $1", last,
                     pqxx::binarystring(resealed->data(), resealed->size()));
      ++counts.values;
    }
    return last;
  });
}

int data_key_reseal(const Config& config, const Options&) {
  auto key = crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                       config.webhook_encryption_key_previous_hex);
  if (!key.ok()) return fail(key.error().message);
  auto pool = open_pool(config);
  Resealed total;
  for (const auto& column : crypto::kSealedColumns) {
    Resealed counts;
    std::string after;
    while (true) {
      auto last = reseal_batch(pool, *key, column, after, counts);
      if (!last.ok()) return fail(last.error().message);
      if (last->empty()) break;
      after = *last;
    }
    std::printf("%s.%s: %ld re-sealed, %ld unreadable\n", column.table, column.sealed_column,
                counts.values, counts.unreadable);
    total.values += counts.values;
    total.unreadable += counts.unreadable;
  }
  if (total.unreadable > 0) {
    return fail(std::to_string(total.unreadable) +
                " values open with neither key: keep PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS "
                "and find the key that sealed them");
  }
  std::printf(
      "every sealed value uses the current key; PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS can be "
      "removed from the workers now and from the API after 72 hours (idempotency keys used "
      "before the rotation; docs/operations.md)\n");
  return 0;
}

}  // namespace

void add_key_commands(CommandTable& table) {
  table["data-key-reseal"] = {
      "data-key-reseal",
      "seal every stored sealed value with PAYRAIL_WEBHOOK_ENCRYPTION_KEY (opening it with that "
      "key or "
      "PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS): the last step of a key rotation",
      data_key_reseal};
}

}  // namespace payrail::infra::cli
