// Idempotency records (docs/api.md "Idempotency"): one per (organization, mode, key),
// inserted in the same transaction as the resource it created. A concurrent identical request
// blocks on the insert until the first commits, then finds the record: never two resources.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "schemas/model/common/mode.h"

namespace payrail::infra::store::idempotency {

constexpr int kRetentionHours = 72;  // at least the 24 h the contract promises

struct Scope {
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::string key;
};

struct Record {
  std::string endpoint;
  std::string request_hash;  // raw SHA-256 of the endpoint and the normalized body
  std::string resource_id;
  std::optional<int> response_status;
  std::optional<std::string> response_body;
  std::optional<std::string> response_request_id;
  int age_seconds = 0;
};

// Inserts the record; false when the key already exists (the caller reads it with find()).
bool claim(pqxx::work& tx, const Scope& scope, const std::string& endpoint,
           const std::string& request_hash, const std::string& resource_id);

std::optional<Record> find(pqxx::transaction_base& tx, const Scope& scope);
model::Result<std::optional<Record>> find(pg::Pool& pool, const Scope& scope);

// Stores the response first sent for the key, so replays return exactly it. False when a response
// was stored before (that one stands).
bool complete(pqxx::transaction_base& tx, const Scope& scope, int status, const std::string& body,
              const std::string& request_id);

// One create's answer, to store with complete_many().
struct Answer {
  const Scope* scope;
  int status;
  const std::string* body;
  const std::string* request_id;
};

// complete() for many keys with one statement (the answers of creates decided together); per
// answer, in order, whether it was stored. The keys must differ.
std::vector<bool> complete_many(pqxx::transaction_base& tx, const std::vector<Answer>& answers);

// Deletes records past retention; returns how many.
model::Result<long> purge_expired(pg::Pool& pool, int batch_max);

}  // namespace payrail::infra::store::idempotency
