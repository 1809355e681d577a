// Helpers for payout tests: request bodies, polling for a state, and ledger invariants checked
// directly in Postgres.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "tests/support/database.h"
#include "tests/support/http_client.h"

namespace payrail::testing {

// A fresh, valid, all-lower-case EVM address (no checksum needed).
std::string random_evm_address();
// Test-mode trigger addresses (schemas/model/payouts/destination.h).
std::string blocked_trigger_address();
std::string fail_trigger_address();
// The first address of a real OFAC list file (e.g. "ETH", "TRX").
std::string listed_address(const std::string& asset);

std::string payout_body(const std::string& amount, const std::string& currency,
                        const std::string& network, const std::string& address);

HttpResult create_payout(const HttpClient& http, const std::string& api_key,
                         const std::string& idempotency_key, const std::string& body);

// Polls GET `path` (a payout, fiat payout ...) until its status is one of `statuses`; returns
// the last status seen.
std::string wait_for_resource_status(const HttpClient& http, const std::string& api_key,
                                     const std::string& path, const std::set<std::string>& statuses,
                                     std::chrono::milliseconds timeout);

// Polls GET /v1/payouts/{id} until its status is one of `statuses`; returns the last status.
std::string wait_for_status(const HttpClient& http, const std::string& api_key,
                            const std::string& payout_id, const std::set<std::string>& statuses,
                            std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Empty when every balance equals its journal postings and every entry sums to zero;
// otherwise a description of the first mismatch.
std::string ledger_mismatch(const TestDatabase& database);

// "available/held" of an asset for an organization and mode, from Postgres, without trailing
// zeros ("999989.5/0").
std::string balance_of(const TestDatabase& database, const std::string& org_id,
                       const std::string& mode, const std::string& asset);

// Count of events of `type` for a payout or fiat payout.
int event_count(const TestDatabase& database, const std::string& payout_id,
                const std::string& type);

}  // namespace payrail::testing
