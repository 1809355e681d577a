// The screening decision against the real OFAC data (the snapshot shipped in data/sanctions).
#include <gtest/gtest.h>

#include <fstream>

#include "infra/sanctions/sanctions.h"
#include "workers/screening/decision.h"

namespace payrail::workers::screening {
namespace {

std::shared_ptr<const infra::sanctions::SanctionsLists> real_lists() {
  static const auto lists = [] {
    const auto directory = infra::sanctions::find_default_sanctions_directory();
    EXPECT_TRUE(directory.has_value()) << "sanctions data not found";
    auto loaded = infra::sanctions::SanctionsLists::load(directory.value_or(""));
    EXPECT_TRUE(loaded.ok());
    return loaded.ok() ? *loaded : nullptr;
  }();
  return lists;
}

std::string first_listed(const std::string& asset) {
  std::ifstream file(*infra::sanctions::find_default_sanctions_directory() +
                     "/digital-currency-addresses/sanctioned_addresses_" + asset + ".txt");
  std::string line;
  std::getline(file, line);
  return line;
}

TEST(ScreeningDecision, ListedEthAddressIsOfacSdnInAnyCase) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  auto address = first_listed("ETH");
  for (auto& c : address) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto result = decide({model::Mode::live, address, false}, *lists);
  EXPECT_TRUE(result.blocked);
  EXPECT_EQ(result.reasons, std::vector<std::string>{"ofac_sdn"});
  EXPECT_EQ(result.list_version, lists->version());
}

TEST(ScreeningDecision, ListedTronAddressIsOfacSdn) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  const auto result = decide({model::Mode::test, first_listed("TRX"), false}, *lists);
  EXPECT_TRUE(result.blocked);
  EXPECT_EQ(result.reasons, std::vector<std::string>{"ofac_sdn"});
}

TEST(ScreeningDecision, CleanAddressIsClear) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  const auto result =
      decide({model::Mode::live, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", false}, *lists);
  EXPECT_FALSE(result.blocked);
  EXPECT_TRUE(result.reasons.empty());
}

TEST(ScreeningDecision, InternalBlacklistAndBothReasonsInOrder) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  EXPECT_EQ(decide({model::Mode::live, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", true}, *lists)
                .reasons,
            std::vector<std::string>{"internal_blacklist"});
  const auto both = decide({model::Mode::test, first_listed("ETH"), true}, *lists);
  EXPECT_EQ(both.reasons, (std::vector<std::string>{"ofac_sdn", "internal_blacklist"}));
}

TEST(ScreeningDecision, BlockedSuffixOnlyInTestMode) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  const std::string trigger =
      "0x00000000000000000000000000000000"
      "0blocked";
  EXPECT_TRUE(decide({model::Mode::test, trigger, false}, *lists).blocked);
  EXPECT_FALSE(decide({model::Mode::live, trigger, false}, *lists).blocked);
}

}  // namespace
}  // namespace payrail::workers::screening
