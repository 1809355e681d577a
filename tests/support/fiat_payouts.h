// Helpers for fiat payout tests: one valid account per payout method (none of them the catalog's
// published example, which GET /v1/payment-methods shows on purpose), request bodies, and polling.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/http_client.h"

namespace payrail::testing {

struct AccountCase {
  std::string country;
  std::string currency;
  std::string type;
  std::vector<std::pair<std::string, std::string>> fields;  // in the method's order
  std::vector<std::string> check_digit_fields;              // fields the scheme checks
  std::vector<std::string> identifiers;                     // fields shown masked

  std::string account_json() const;
  // The account with `field`'s last digit changed (d -> d+1 mod 10), so its check fails.
  std::string account_json_with_digit_changed(const std::string& field) const;
  std::string value_of(const std::string& field) const;
};

// One valid account for each of the 14 payout methods.
const std::vector<AccountCase>& account_cases();
// The Mexican CLABE case.
const AccountCase& mexico_case();

std::string fiat_payout_body(const std::string& amount, const AccountCase& account,
                             const std::string& beneficiary_name,
                             const std::string& metadata_json = "");
std::string fiat_payout_body(const std::string& amount, const std::string& currency,
                             const std::string& country, const std::string& beneficiary_name,
                             const std::string& account_json);

HttpResult create_fiat_payout(const HttpClient& http, const std::string& api_key,
                              const std::string& idempotency_key, const std::string& body);

// Polls GET /v1/fiat-payouts/{id} until its status is one of `statuses`; returns the last status.
std::string wait_for_fiat_status(const HttpClient& http, const std::string& api_key,
                                 const std::string& id, const std::set<std::string>& statuses,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace payrail::testing
