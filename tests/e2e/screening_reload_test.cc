// The screening worker reloads the sanctions lists when their files change or when
// `payrail sanctions-update` installs a newer snapshot, without a restart, and records the new
// list version on the decisions it makes with them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "infra/adapters/sanctions/sanctions.h"
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

// How many times the screening worker loaded lists (the first is the load at start).
std::size_t load_count(TestStack& stack) {
  const auto log = stack.process("screening").log();
  std::size_t count = 0;
  for (auto at = log.find("sanctions.loaded"); at != std::string::npos;
       at = log.find("sanctions.loaded", at + 1)) {
    ++count;
  }
  return count;
}

bool wait_for_loads(TestStack& stack, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (load_count(stack) < count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return load_count(stack) >= count;
}

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
  ASSERT_TRUE(wait_for_loads(*stack_, load_count(*stack_) + 1))
      << "the screening worker did not reload the changed lists";
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

// An operator installs a downloaded snapshot with the CLI; the running worker switches to it and
// `payrail sanctions-status` shows the version it uses.
TEST_F(ScreeningReload, SanctionsUpdateInstallsASnapshotTheWorkerUses) {
  const auto download = copy_.parent_path() / ("payrail-download-" + std::to_string(getpid()));
  fs::remove_all(download);
  fs::create_directories(download / "addresses");
  const auto in_use = fs::path(infra::sanctions::snapshot_directory(copy_.string()));
  fs::copy_file(in_use / "ofac-sdn.csv", download / "sdn.csv");
  for (const auto& entry : fs::directory_iterator(in_use / "digital-currency-addresses")) {
    fs::copy_file(entry.path(), download / "addresses" / entry.path().filename());
  }
  const auto address = random_evm_address();
  std::ofstream(download / "addresses" / "sanctioned_addresses_USDC.txt", std::ios::app)
      << "\n"
      << address << "\n";
  const auto loads_before = load_count(*stack_);
  const auto [code, output] =
      stack_->cli({"sanctions-update", "--sdn", (download / "sdn.csv").string(), "--addresses",
                   (download / "addresses").string()});
  fs::remove_all(download);
  ASSERT_EQ(code, 0) << output;
  ASSERT_NE(output.find("installed sdn:"), std::string::npos) << output;
  const auto version = output.substr(output.find("sdn:"),
                                     output.find(' ', output.find("sdn:")) - output.find("sdn:"));
  ASSERT_TRUE(wait_for_loads(*stack_, loads_before + 1)) << "the worker did not load the update";

  const auto org = stack_->create_organization();
  const auto blocked = create_payout(stack_->http(), org.test_key, "after-update",
                                     payout_body("1", "USDC", "base", address));
  ASSERT_EQ(blocked.status, 403) << blocked.body;
  const std::string id = blocked.json()["error"]["payout_id"].GetString();
  EXPECT_EQ(stack_->database().scalar("SELECT screening_list_version FROM payouts WHERE id = '" +
                                      id + "'"),
            version);
  // Heartbeats carry the loaded version every 2 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string status;
  while (std::chrono::steady_clock::now() < deadline) {
    status = stack_->cli({"sanctions-status"}).second;
    if (status.find("worker\t" + version) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(status.find("on disk\t" + version), std::string::npos) << status;
  EXPECT_NE(status.find("worker\t" + version), std::string::npos) << status;
}

}  // namespace
}  // namespace payrail::testing
