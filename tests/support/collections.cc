#include "tests/support/collections.h"

#include <stdexcept>
#include <thread>

#include "schemas/model/money/money.h"

namespace payrail::testing {
namespace {

model::Decimal decimal(const std::string& text) {
  const auto parsed = model::parse_decimal(text);
  if (!parsed) throw std::runtime_error("not a decimal: " + text);
  return *parsed;
}

}  // namespace

std::string collection_body(const std::string& amount, const std::string& currency,
                            const std::string& method, const std::string& extra_members) {
  return R"({"amount":")" + amount + R"(","currency":")" + currency + R"(","method":")" + method +
         "\"" + (extra_members.empty() ? "" : "," + extra_members) + "}";
}

HttpResult create_collection(const HttpClient& http, const std::string& api_key,
                             const std::string& idempotency_key, const std::string& body) {
  return http.post("/v1/collections", body,
                   with_key(api_key, {{"Idempotency-Key", idempotency_key}}));
}

HttpResult collection_helper(const HttpClient& http, const std::string& api_key,
                             const std::string& collection_id, const std::string& action,
                             const std::string& body) {
  return http.post("/v1/test-helpers/collections/" + collection_id + "/" + action, body,
                   with_key(api_key));
}

std::string wait_for_collection(const HttpClient& http, const std::string& api_key,
                                const std::string& collection_id,
                                const std::set<std::string>& statuses,
                                std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string status;
  for (;;) {
    const auto response = http.get("/v1/collections/" + collection_id, with_key(api_key));
    if (response.status == 200) status = response.json()["status"].GetString();
    if (statuses.contains(status) || std::chrono::steady_clock::now() > deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string usdc_available(const HttpClient& http, const std::string& api_key) {
  const auto response = http.get("/v1/balances", with_key(api_key));
  if (response.status != 200) throw std::runtime_error("GET /v1/balances: " + response.body);
  const auto json = response.json();
  for (const auto& balance : json["data"].GetArray()) {
    if (std::string(balance["asset"].GetString()) == "USDC")
      return balance["available"].GetString();
  }
  throw std::runtime_error("no USDC balance: " + response.body);
}

std::string rate_to_usdc(const HttpClient& http, const std::string& api_key,
                         const std::string& currency) {
  const auto response = http.get("/v1/rates?from=" + currency + "&to=USDC", with_key(api_key));
  if (response.status != 200) throw std::runtime_error("GET /v1/rates: " + response.body);
  return response.json()["rate"].GetString();
}

std::string usdc_for(const std::string& amount, const std::string& rate) {
  return model::format_decimal(model::round_to_scale(
      model::multiply(decimal(amount), decimal(rate)), 6, model::Rounding::down));
}

std::string add_amounts(const std::string& a, const std::string& b) {
  return model::format_decimal(model::add(decimal(a), decimal(b)));
}

int compare_amounts(const std::string& a, const std::string& b) {
  return model::compare(decimal(a), decimal(b));
}

}  // namespace payrail::testing
