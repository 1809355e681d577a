#include "tests/support/database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::testing {
namespace {

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string(name) +
                             " is not set: run the tests through infra/test, which starts the "
                             "test PostgreSQL cluster");
  }
  return value;
}

}  // namespace

std::string test_database_url(const std::string& name) {
  auto url = required_env("PAYRAIL_TEST_DATABASE_URL");
  const auto slash = url.rfind('/');
  return url.substr(0, slash + 1) + name;
}

std::string wait_for_value(const TestDatabase& database, const std::string& sql,
                           const std::string& expected, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto value = database.scalar(sql);
    if (value == expected || std::chrono::steady_clock::now() > deadline) return value;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string sql_list(const std::vector<std::string>& values) {
  std::string list;
  for (const auto& value : values) {
    list += list.empty() ? "('" : ", '";
    for (const char c : value) list += c == '\'' ? std::string("''") : std::string(1, c);
    list += "'";
  }
  return list.empty() ? "(NULL)" : list + ")";
}

TestDatabase::TestDatabase() : admin_url_(required_env("PAYRAIL_TEST_DATABASE_URL")) {
  static std::atomic<int> counter{0};
  name_ = "t_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
          infra::crypto::random_base62(6);
  for (auto& c : name_) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto template_name = required_env("PAYRAIL_TEST_TEMPLATE_DATABASE");
  pqxx::connection admin(admin_url_);
  pqxx::nontransaction tx(admin);
  tx.exec("CREATE DATABASE " + name_ + " TEMPLATE " + template_name);
  url_ = test_database_url(name_);
}

TestDatabase::TestDatabase(std::string existing_url)
    : url_(std::move(existing_url)), owned_(false) {}

TestDatabase::~TestDatabase() {
  connection_.reset();
  if (!owned_) return;
  try {
    pqxx::connection admin(admin_url_);
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception&) {
    // The cluster is thrown away at the end of infra/test anyway.
  }
}

std::unique_ptr<pqxx::connection> TestDatabase::connect() const {
  return std::make_unique<pqxx::connection>(url_);
}

std::string TestDatabase::scalar(const std::string& sql) const {
  std::lock_guard lock(mutex_);
  // A kept connection may have died since its last use (a test that restarts the cluster): it
  // is found out when the query is sent, and the query is sent again once, on a new connection.
  // (Had the server run it before the connection died, it runs twice: the writes tests make
  // through here set a value, so a second run changes nothing.)
  for (int attempt = 0;; ++attempt) {
    if (!connection_) connection_ = connect();
    try {
      pqxx::nontransaction tx(*connection_);
      const auto rows = tx.exec(sql);
      if (rows.empty() || rows[0][0].is_null()) return "";
      return rows[0][0].as<std::string>();
    } catch (const pqxx::broken_connection&) {
      connection_.reset();
      if (attempt > 0) throw;
    }
  }
}

void TestDatabase::add_organization(const std::string& org_id) const {
  auto connection = connect();
  pqxx::work tx(*connection);
  tx.exec_params(
      "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject) "
      "VALUES ($1, 'Test Ltd', 'Test', 'CA', 'owner')",
      org_id);
  tx.commit();
}

}  // namespace payrail::testing
