#include "tests/support/payout_batch.h"

#include <gtest/gtest.h>

#include "tests/support/payouts.h"

namespace payrail::testing {

PayoutBatch::PayoutBatch(TestStack& stack, int size, std::chrono::milliseconds between)
    : stack_(stack), size_(size), organization_(stack.create_organization()) {
  thread_ = std::thread([this, between] {
    for (int i = 0; i < size_; ++i) {
      const auto address = i % 4 == 0   ? fail_trigger_address()
                           : i % 4 == 1 ? blocked_trigger_address()
                                        : random_evm_address();
      const auto expected = i % 4 == 0 ? "failed" : i % 4 == 1 ? "blocked" : "completed";
      send_until_answered(i, address, expected);
      std::this_thread::sleep_for(between);
    }
  });
}

PayoutBatch::~PayoutBatch() {
  if (thread_.joinable()) thread_.join();
}

void PayoutBatch::send_until_answered(int index, const std::string& address,
                                      const std::string& expected) {
  const auto body = payout_body("1", "USDC", "polygon", address);
  for (int attempt = 0; attempt < 600; ++attempt) {
    try {
      const auto response = create_payout(stack_.http(), organization_.test_key,
                                          "batch-" + std::to_string(index), body);
      std::string id;
      if (response.status == 201) id = response.json()["id"].GetString();
      if (response.status == 403) id = response.json()["error"]["payout_id"].GetString();
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
  for (const auto& [id, expected] : expected_) {
    EXPECT_EQ(wait_for_status(stack_.http(), organization_.test_key, id, {expected}, timeout),
              expected)
        << id;
    completed += expected == "completed";
    expect_exactly_once(id, expected);
  }
  const auto& db = stack_.database();
  EXPECT_EQ(db.scalar("SELECT count(*) FROM payouts WHERE org_id = '" + organization_.id + "'"),
            std::to_string(size_));
  EXPECT_EQ(balance_of(db, organization_.id, "test", "USDC"),
            std::to_string(1000000 - completed) + "/0");
  EXPECT_EQ(ledger_mismatch(db), "");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM (SELECT resource_id FROM events GROUP BY resource_id "
                      "HAVING max(sequence) <> count(*)) gaps"),
            "0");
}

void PayoutBatch::expect_exactly_once(const std::string& id, const std::string& expected) {
  const auto& db = stack_.database();
  EXPECT_EQ(event_count(db, id, "payout.created"), 1) << id;
  EXPECT_EQ(event_count(db, id, "payout." + expected), 1) << id;
  EXPECT_EQ(event_count(db, id, "payout.processing"), expected == "blocked" ? 0 : 1) << id;
  const auto outcome = expected == "completed" ? "settle"
                       : expected == "failed"  ? "refund"
                                               : "release";
  EXPECT_EQ(db.scalar("SELECT string_agg(kind, ',' ORDER BY id) FROM journal_entries WHERE "
                      "resource_id = '" +
                      id + "'"),
            std::string("hold,") + outcome)
      << id;
}

}  // namespace payrail::testing
