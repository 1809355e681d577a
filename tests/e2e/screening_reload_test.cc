// The screening worker reloads the sanctions lists when their files change, without a restart,
// and records the new list version on the decisions it makes with them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "infra/sanctions/sanctions.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

namespace fs = std::filesystem;

class ScreeningReload : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    copy_ = fs::temp_directory_path() / ("payrail-sanctions-" + std::to_string(getpid()));
    fs::remove_all(copy_);
    fs::copy(*infra::sanctions::find_default_sanctions_directory(), copy_,
             fs::copy_options::recursive);
    for (const auto& entry : fs::recursive_directory_iterator(copy_)) {
      fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
    }
    fs::permissions(copy_ / "digital-currency-addresses", fs::perms::owner_all,
                    fs::perm_options::add);
    stack_ = new TestStack({.workers = {"screening", "execution", "settlement"},
                            .env = {{"PAYRAIL_SANCTIONS_DIR", copy_.string()},
                                    {"PAYRAIL_SANCTIONS_RELOAD_INTERVAL_MS", "300"}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    fs::remove_all(copy_);
  }
  static TestStack* stack_;
  static fs::path copy_;
};
TestStack* ScreeningReload::stack_ = nullptr;
fs::path ScreeningReload::copy_;

TEST_F(ScreeningReload, NewlyListedAddressIsBlockedWithoutRestart) {
  const auto org = stack_->create_organization();
  const auto address = random_evm_address();
  const auto before = create_payout(stack_->http(), org.test_key, "before",
                                    payout_body("1", "USDC", "polygon", address));
  ASSERT_EQ(before.status, 201) << before.body;
  const auto old_version =
      stack_->database().scalar("SELECT screening_list_version FROM payouts WHERE id = '" +
                                std::string(before.json()["id"].GetString()) + "'");

  std::ofstream(copy_ / "digital-currency-addresses" / "sanctioned_addresses_ETH.txt",
                std::ios::app)
      << address << "\n";
  // The first "sanctions.loaded" is the load at start; wait for the reload.
  const auto loads = [&] {
    const auto log = stack_->process("screening").log();
    std::size_t count = 0;
    for (auto at = log.find("sanctions.loaded"); at != std::string::npos;
         at = log.find("sanctions.loaded", at + 1)) {
      ++count;
    }
    return count;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (loads() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(loads(), 2u) << "the screening worker did not reload the changed lists";
  const auto after = create_payout(stack_->http(), org.test_key, "after",
                                   payout_body("1", "USDC", "polygon", address));
  ASSERT_EQ(after.status, 403) << after.body;
  EXPECT_EQ(after.error_code(), "screening_blocked");
  const std::string id = after.json()["error"]["payout_id"].GetString();
  const auto payout = stack_->http().get("/v1/payouts/" + id, with_key(org.test_key)).json();
  EXPECT_STREQ(payout["screening_result"]["reasons"][0].GetString(), "ofac_sdn");
  const auto new_version = stack_->database().scalar(
      "SELECT screening_list_version FROM payouts WHERE id = '" + id + "'");
  EXPECT_NE(new_version, old_version);
  EXPECT_EQ(ledger_mismatch(stack_->database()), "");
}

}  // namespace
}  // namespace payrail::testing
