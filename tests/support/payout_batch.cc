#include "tests/support/payout_batch.h"

#include <gtest/gtest.h>

#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"

namespace payrail::testing {

PayoutBatch::PayoutBatch(TestStack& stack, int size, std::chrono::milliseconds between,
                         BatchKind kind)
    : stack_(stack), size_(size), kind_(kind), organization_(stack.create_organization()) {
  thread_ = std::thread([this, between] {
    for (int i = 0; i < size_; ++i) {
      send_until_answered(i, i % 4 == 0 ? "failed" : i % 4 == 1 ? "blocked" : "completed");
      std::this_thread::sleep_for(between);
    }
  });
}

PayoutBatch::~PayoutBatch() {
  if (thread_.joinable()) thread_.join();
}

namespace {

// 18.45 MXN is exactly 1 USDC at the reference rate, like the 1 USDC of a payout.
constexpr const char* kFiatAmount = "18.45";

// The request for a payout that ends `expected`, through the test-mode triggers.
std::string body_for(BatchKind kind, const std::string& expected) {
  if (kind == BatchKind::fiat_payout) {
    const auto name = expected == "failed"    ? "Ana Souza FAIL"
                      : expected == "blocked" ? "Ana Souza BLOCKED"
                                              : "Ana Souza";
    return fiat_payout_body(kFiatAmount, mexico_case(), name);
  }
  const auto address = expected == "failed"    ? fail_trigger_address()
                       : expected == "blocked" ? blocked_trigger_address()
                                               : random_evm_address();
  return payout_body("1", "USDC", "polygon", address);
}

}  // namespace

void PayoutBatch::send_until_answered(int index, const std::string& expected) {
  const bool fiat = kind_ == BatchKind::fiat_payout;
  const auto body = body_for(kind_, expected);
  const auto key = "batch-" + std::to_string(index);
  for (int attempt = 0; attempt < 600; ++attempt) {
    try {
      const auto response =
          fiat ? create_fiat_payout(stack_.http(), organization_.test_key, key, body)
               : create_payout(stack_.http(), organization_.test_key, key, body);
      std::string id;
      if (response.status == 201) id = response.json()["id"].GetString();
      if (response.status == 403) {
        id = response.json()["error"][fiat ? "fiat_payout_id" : "payout_id"].GetString();
      }
      if (!id.empty()) {
        std::lock_guard lock(mutex_);
        expected_[id] = expected;
        return;
      }
    } catch (const std::exception&) {
      // Connection refused while the API restarts: retry with the same key.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "payout " << index << " never answered";
}

const std::map<std::string, std::string>& PayoutBatch::wait_answered() {
  if (thread_.joinable()) thread_.join();
  return expected_;
}

void PayoutBatch::verify(std::chrono::seconds timeout) {
  wait_answered();
  ASSERT_EQ(expected_.size(), static_cast<std::size_t>(size_));
  int completed = 0;
  const bool fiat = kind_ == BatchKind::fiat_payout;
  for (const auto& [id, expected] : expected_) {
    const auto path = (fiat ? "/v1/fiat-payouts/" : "/v1/payouts/") + id;
    EXPECT_EQ(
        wait_for_resource_status(stack_.http(), organization_.test_key, path, {expected}, timeout),
        expected)
        << id;
    completed += expected == "completed";
    if (fiat) {
      expect_fiat_exactly_once(id, expected);
    } else {
      expect_exactly_once(id, expected);
    }
  }
  const auto& db = stack_.database();
  EXPECT_EQ(db.scalar(std::string("SELECT count(*) FROM ") + (fiat ? "fiat_payouts" : "payouts") +
                      " WHERE org_id = '" + organization_.id + "'"),
            std::to_string(size_));
  EXPECT_EQ(balance_of(db, organization_.id, "test", "USDC"),
            std::to_string(1000000 - completed) + "/0");
  EXPECT_EQ(ledger_mismatch(db), "");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM (SELECT resource_id FROM events GROUP BY resource_id "
                      "HAVING max(sequence) <> count(*)) gaps"),
            "0");
}

namespace {

// One hold and one outcome in the journal.
void expect_hold_and_outcome(const TestDatabase& db, const std::string& id,
                             const std::string& expected) {
  const auto outcome = expected == "completed" ? "settle"
                       : expected == "failed"  ? "refund"
                                               : "release";
  EXPECT_EQ(db.scalar("SELECT string_agg(kind, ',' ORDER BY id) FROM journal_entries WHERE "
                      "resource_id = '" +
                      id + "'"),
            std::string("hold,") + outcome)
      << id;
}

}  // namespace

void PayoutBatch::expect_exactly_once(const std::string& id, const std::string& expected) {
  const auto& db = stack_.database();
  EXPECT_EQ(event_count(db, id, "payout.created"), 1) << id;
  EXPECT_EQ(event_count(db, id, "payout." + expected), 1) << id;
  EXPECT_EQ(event_count(db, id, "payout.processing"), expected == "blocked" ? 0 : 1) << id;
  expect_hold_and_outcome(db, id, expected);
}

void PayoutBatch::expect_fiat_exactly_once(const std::string& id, const std::string& expected) {
  const auto& db = stack_.database();
  EXPECT_EQ(event_count(db, id, "fiat_payout." + expected), 1) << id;
  EXPECT_EQ(event_count(db, id, "fiat_payout.processing"), expected == "blocked" ? 0 : 1) << id;
  EXPECT_EQ(db.scalar("SELECT count(*) FROM events WHERE resource_id = '" + id + "'"),
            expected == "blocked" ? "1" : "2")
      << id;
  expect_hold_and_outcome(db, id, expected);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM resource_transitions WHERE resource_id = '" + id +
                      "' AND to_status = '" + expected + "'"),
            "1")
      << id;
}

}  // namespace payrail::testing
