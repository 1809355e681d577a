// A stream of payouts or fiat payouts created in the background for recovery tests, and the
// checks that nothing was lost or applied twice: every 4th fails (its broadcast, or the partner
// returns it), every 4th is blocked by screening, the rest complete, each for exactly 1 USDC.
// Creates are retried with the same Idempotency-Key until the API answers (it may be
// restarting).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "tests/support/stack.h"

namespace payrail::testing {

enum class BatchKind { payout, fiat_payout };

class PayoutBatch {
 public:
  PayoutBatch(TestStack& stack, int size,
              std::chrono::milliseconds between = std::chrono::milliseconds(40),
              BatchKind kind = BatchKind::payout);
  ~PayoutBatch();
  PayoutBatch(const PayoutBatch&) = delete;
  PayoutBatch& operator=(const PayoutBatch&) = delete;

  // Waits until every create was answered; returns payout id -> expected terminal status.
  const std::map<std::string, std::string>& wait_answered();
  // wait_answered, then: every payout reached its expected status exactly once (one event of
  // each kind, one hold and one outcome in the journal), the organization's balance matches,
  // the ledger balances and no event sequence has a gap.
  void verify(std::chrono::seconds timeout = std::chrono::seconds(90));
  const TestOrganization& organization() const { return organization_; }

 private:
  void send_until_answered(int index, const std::string& expected);
  void expect_exactly_once(const std::string& id, const std::string& expected);
  void expect_fiat_exactly_once(const std::string& id, const std::string& expected);

  TestStack& stack_;
  int size_;
  BatchKind kind_;
  TestOrganization organization_;
  std::map<std::string, std::string> expected_;
  std::mutex mutex_;
  std::thread thread_;
};

}  // namespace payrail::testing
