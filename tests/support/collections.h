// Helpers for collection tests: request bodies, the test helpers, polling for a status, balances
// read over HTTP, and the expected USDC credit computed from the published rate.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "tests/support/database.h"
#include "tests/support/http_client.h"

namespace payrail::testing {

std::string collection_body(const std::string& amount, const std::string& currency,
                            const std::string& method, const std::string& extra_members = "");

HttpResult create_collection(const HttpClient& http, const std::string& api_key,
                             const std::string& idempotency_key, const std::string& body);

// POST /v1/test-helpers/collections/{id}/<action> (receive, fail, expire).
HttpResult collection_helper(const HttpClient& http, const std::string& api_key,
                             const std::string& collection_id, const std::string& action,
                             const std::string& body = "");

// Polls GET /v1/collections/{id} until its status is one of `statuses`; returns the last status.
std::string wait_for_collection(const HttpClient& http, const std::string& api_key,
                                const std::string& collection_id,
                                const std::set<std::string>& statuses,
                                std::chrono::milliseconds timeout = std::chrono::seconds(30));

// The `available` USDC of GET /v1/balances for the key's organization and mode.
std::string usdc_available(const HttpClient& http, const std::string& api_key);

// `rate` of GET /v1/rates?from=<currency>&to=USDC.
std::string rate_to_usdc(const HttpClient& http, const std::string& api_key,
                         const std::string& currency);

// amount x rate rounded down to 6 decimals, and a + b, as decimal strings (exact).
std::string usdc_for(const std::string& amount, const std::string& rate);
std::string add_amounts(const std::string& a, const std::string& b);
// -1, 0, 1.
int compare_amounts(const std::string& a, const std::string& b);

}  // namespace payrail::testing
