// The screening decision against the real OFAC data (the snapshot shipped in data/sanctions).
#include <gtest/gtest.h>

#include <fstream>

#include "infra/adapters/sanctions/sanctions.h"
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

// Fiat beneficiaries: the real SDN names, compared normalized. "MADURO MOROS, Nicolas" is an
// individual row of the shipped snapshot.
TEST(ScreeningDecision, SdnNameInAnotherOrderCaseAndAccentIsOfacSdn) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  for (const auto* name :
       {"Nicolás Maduro Moros", "nicolas MADURO moros", "MOROS, Nicolas Maduro"}) {
    const auto result = decide_beneficiary({model::Mode::live, name, false}, *lists);
    EXPECT_TRUE(result.blocked) << name;
    EXPECT_EQ(result.reasons, std::vector<std::string>{"ofac_sdn"}) << name;
    EXPECT_EQ(result.list_version, lists->version());
  }
  // A name that shares words with an SDN name but is not one is clear.
  EXPECT_FALSE(decide_beneficiary({model::Mode::live, "Nicolas Moros", false}, *lists).blocked);
  EXPECT_FALSE(
      decide_beneficiary({model::Mode::live, "Maria Fernanda Lopez", false}, *lists).blocked);
}

TEST(ScreeningDecision, BeneficiaryBlacklistAndBothReasonsInOrder) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  EXPECT_EQ(decide_beneficiary({model::Mode::live, "Maria Lopez", true}, *lists).reasons,
            std::vector<std::string>{"internal_blacklist"});
  EXPECT_EQ(decide_beneficiary({model::Mode::test, "Nicolas Maduro Moros", true}, *lists).reasons,
            (std::vector<std::string>{"ofac_sdn", "internal_blacklist"}));
}

TEST(ScreeningDecision, BlockedNameSuffixOnlyInTestModeAndExactly) {
  auto lists = real_lists();
  ASSERT_NE(lists, nullptr);
  const auto test = decide_beneficiary({model::Mode::test, "Maria Lopez BLOCKED", false}, *lists);
  EXPECT_TRUE(test.blocked);
  EXPECT_EQ(test.reasons, std::vector<std::string>{"internal_blacklist"});
  EXPECT_FALSE(
      decide_beneficiary({model::Mode::live, "Maria Lopez BLOCKED", false}, *lists).blocked);
  EXPECT_FALSE(
      decide_beneficiary({model::Mode::test, "Maria Lopez blocked", false}, *lists).blocked);
  EXPECT_FALSE(
      decide_beneficiary({model::Mode::test, "Maria LopezBLOCKED", false}, *lists).blocked);
}

}  // namespace
}  // namespace payrail::workers::screening
