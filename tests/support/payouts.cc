#include "tests/support/payouts.h"

#include <fstream>
#include <thread>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/plumbing/crypto/crypto.h"

namespace payrail::testing {

std::string random_evm_address() {
  return "0x" + infra::crypto::hex_encode(infra::crypto::random_bytes(20));
}

std::string blocked_trigger_address() {
  return "0x" + infra::crypto::hex_encode(infra::crypto::random_bytes(16)) + "0blocked";
}

std::string fail_trigger_address() {
  return "0x" + infra::crypto::hex_encode(infra::crypto::random_bytes(18)).substr(0, 35) + "0fail";
}

std::string listed_address(const std::string& asset) {
  const auto directory = infra::sanctions::find_default_sanctions_directory();
  if (!directory) throw std::runtime_error("sanctions data not found");
  std::ifstream file(*directory + "/digital-currency-addresses/sanctioned_addresses_" + asset +
                     ".txt");
  std::string line;
  std::getline(file, line);
  if (line.empty()) throw std::runtime_error("no listed address for " + asset);
  return line;
}

std::string payout_body(const std::string& amount, const std::string& currency,
                        const std::string& network, const std::string& address) {
  return R"({"amount":")" + amount + R"(","currency":")" + currency +
         R"(","destination":{"network":")" + network + R"(","address":")" + address + R"("}})";
}

HttpResult create_payout(const HttpClient& http, const std::string& api_key,
                         const std::string& idempotency_key, const std::string& body) {
  return http.post("/v1/payouts", body,
                   {{"X-API-Key", api_key}, {"Idempotency-Key", idempotency_key}});
}

std::string wait_for_status(const HttpClient& http, const std::string& api_key,
                            const std::string& payout_id, const std::set<std::string>& statuses,
                            std::chrono::milliseconds timeout) {
  return wait_for_resource_status(http, api_key, "/v1/payouts/" + payout_id, statuses, timeout);
}

std::string wait_for_resource_status(const HttpClient& http, const std::string& api_key,
                                     const std::string& path, const std::set<std::string>& statuses,
                                     std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string status;
  for (;;) {
    const auto response = http.get(path, with_key(api_key));
    if (response.status == 200) status = response.json()["status"].GetString();
    if (statuses.contains(status) || std::chrono::steady_clock::now() > deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string ledger_mismatch(const TestDatabase& database) {
  const auto unbalanced = database.scalar(
      "SELECT entry_id FROM journal_postings GROUP BY entry_id HAVING sum(amount) <> 0 LIMIT 1");
  if (!unbalanced.empty()) return "journal entry " + unbalanced + " does not balance";
  return database.scalar(R"sql(
    SELECT b.org_id || ' ' || b.mode || ' ' || b.asset || ': balance ' || b.available || '/' ||
           b.held || ' journal ' || coalesce(j.available, 0) || '/' || coalesce(j.held, 0)
    FROM balances b
    LEFT JOIN (SELECT e.org_id, e.mode, e.asset,
                      sum(p.amount) FILTER (WHERE p.account = 'available') AS available,
                      sum(p.amount) FILTER (WHERE p.account = 'held') AS held
               FROM journal_entries e JOIN journal_postings p ON p.entry_id = e.id
               GROUP BY e.org_id, e.mode, e.asset) j
      ON j.org_id = b.org_id AND j.mode = b.mode AND j.asset = b.asset
    WHERE b.available <> coalesce(j.available, 0) OR b.held <> coalesce(j.held, 0)
    LIMIT 1)sql");
}

std::string balance_of(const TestDatabase& database, const std::string& org_id,
                       const std::string& mode, const std::string& asset) {
  return database.scalar(
      "SELECT trim_scale(available)::text || '/' || trim_scale(held)::text FROM balances WHERE "
      "org_id = '" +
      org_id + "' AND mode = '" + mode + "' AND asset = '" + asset + "'");
}

int event_count(const TestDatabase& database, const std::string& payout_id,
                const std::string& type) {
  return std::stoi(database.scalar("SELECT count(*) FROM events WHERE resource_id = '" + payout_id +
                                   "' AND type = '" + type + "'"));
}

}  // namespace payrail::testing
