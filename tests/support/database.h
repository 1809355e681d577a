// A database of its own for each test fixture, cloned from the migrated template that infra/test
// prepares (PAYRAIL_TEST_DATABASE_URL, PAYRAIL_TEST_TEMPLATE_DATABASE). Dropped at the end.
#pragma once

#include <pqxx/pqxx>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace payrail::testing {

class TestDatabase {
 public:
  TestDatabase();
  // An existing database (a private cluster's), used as it is and never dropped.
  explicit TestDatabase(std::string existing_url);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  std::unique_ptr<pqxx::connection> connect() const;
  // Runs one query and returns the first column of the first row as text ("" when no row), on
  // a connection kept for the purpose: a new PostgreSQL connection costs about 25 ms on the CI
  // machine, and tests poll with thousands of these. Safe from several threads (one at a time).
  std::string scalar(const std::string& sql) const;
  // Inserts a bare active organization row (no members, keys or balances) for repository tests.
  void add_organization(const std::string& org_id) const;

 private:
  std::string admin_url_;
  std::string name_;
  std::string url_;
  bool owned_ = true;
  mutable std::mutex mutex_;                              // for connection_
  mutable std::unique_ptr<pqxx::connection> connection_;  // scalar()'s, opened on first use
};

// The URL of database `name` on the test cluster.
std::string test_database_url(const std::string& name);

// Polls Postgres until `sql` (one value) returns `expected`; returns the last value.
std::string wait_for_value(const TestDatabase& database, const std::string& sql,
                           const std::string& expected,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30));

// A parenthesized list of SQL string literals, for `IN` ("('a', 'b')").
std::string sql_list(const std::vector<std::string>& values);

}  // namespace payrail::testing
