// Sanctions loader against the real OFAC data (shared/data/sanctions). Listed entries used for
// hits are read from the data files here, never written into the test.
#include "infra/adapters/sanctions/sanctions.h"
#include "schemas/model/common/source_tree.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace payrail::infra::sanctions {
namespace {

namespace fs = std::filesystem;
using model::normalize_name;  // the one name normalization is the model's (schemas/model/screening)

std::string data_directory() {
  const auto directory = find_default_sanctions_directory();
  return directory.value_or("");
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

fs::path address_file(const std::string& asset) {
  return fs::path(data_directory()) / "digital-currency-addresses" /
         ("sanctioned_addresses_" + asset + ".txt");
}

// The first listed address of `asset` containing a character of `letters`, so that changing
// its case really changes it.
std::string listed_address_with(const std::string& asset, const std::string& letters) {
  for (const auto& line : read_lines(address_file(asset))) {
    if (line.find_first_of(letters) != std::string::npos) return line;
  }
  return "";
}

std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string to_upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::string sha256_hex(const std::string& data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

// Loads the real data once for the suite and logs how long it took.
std::shared_ptr<const SanctionsLists> real_lists() {
  static const auto lists = []() -> std::shared_ptr<const SanctionsLists> {
    const auto directory = data_directory();
    if (directory.empty()) return nullptr;
    const auto started = std::chrono::steady_clock::now();
    auto loaded = SanctionsLists::load(directory);
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    if (!loaded) {
      std::cout << "[sanctions] load failed: " << loaded.error().message << "\n";
      return nullptr;
    }
    std::cout << "[sanctions] full load of " << directory << " took " << elapsed.count()
              << " ms: " << (*loaded)->name_count() << " names, " << (*loaded)->address_count()
              << " addresses, " << (*loaded)->skipped_line_count() << " skipped lines, version "
              << (*loaded)->version() << "\n";
    return *loaded;
  }();
  return lists;
}

#define REQUIRE_REAL_LISTS(lists)                                                      \
  const auto lists = real_lists();                                                     \
  ASSERT_NE(lists, nullptr) << "sanctions data not found or not loadable (directory '" \
                            << data_directory() << "'); the checkout ships data/sanctions"

// A private copy of the real data that a test may modify; removed afterwards.
class ScratchCopy {
 public:
  ScratchCopy() {
    std::string pattern = (fs::temp_directory_path() / "payrail-sanctions-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    try {
      fs::copy(data_directory(), path_, fs::copy_options::recursive);
      // The copy must be writable whatever the checkout's permissions.
      for (const auto& entry : fs::recursive_directory_iterator(path_)) {
        fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
      }
    } catch (...) {
      std::error_code ignored;
      fs::remove_all(path_, ignored);  // the destructor does not run for a throwing constructor
      throw;
    }
  }
  ~ScratchCopy() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  fs::path address_file(const std::string& asset) const {
    return path_ / "digital-currency-addresses" / ("sanctioned_addresses_" + asset + ".txt");
  }
  void append(const fs::path& file, const std::string& line) const {
    const auto content = read_file(file);
    std::ofstream out(file, std::ios::binary | std::ios::app);
    if (!content.empty() && content.back() != '\n') out << '\n';
    out << line << '\n';
  }

 private:
  fs::path path_;
};

// Made up for the tests.
const std::string kUnlistedEvmAddress = "0x1111111111111111111111111111111111111111";
const std::string kAddedEvmAddress = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF99";

TEST(SanctionsDirectoryTest, DefaultDirectoryIsFound) {
  const auto directory = find_default_sanctions_directory();
  ASSERT_TRUE(directory.has_value()) << "no data/sanctions in " << model::source_directory();
  EXPECT_TRUE(fs::is_regular_file(fs::path(*directory) / "ofac-sdn.csv")) << *directory;
  // The checkout's own copy, never a folder beside or above it.
  if (std::getenv("PAYRAIL_SANCTIONS_DIR") == nullptr) {
    EXPECT_EQ(fs::path(*directory),
              (fs::path(model::source_directory()) / "data" / "sanctions").lexically_normal());
  }
}

TEST(SanctionsListsTest, LoadCountsArePlausible) {
  REQUIRE_REAL_LISTS(lists);
  EXPECT_GT(lists->name_count(), 10000u);
  EXPECT_GT(lists->address_count(), 100u);
  // A skipped line in the real data would be a listed party nobody screens against.
  EXPECT_EQ(lists->skipped_line_count(), 0u);
}

TEST(SanctionsListsTest, EthAddressMatchesInAnyCase) {
  REQUIRE_REAL_LISTS(lists);
  const auto listed = listed_address_with("ETH", "abcdefABCDEF");
  ASSERT_EQ(listed.size(), 42u) << "no ETH address with hex letters in " << address_file("ETH");
  const auto upper_hex = "0x" + to_upper(listed.substr(2));
  for (const auto& form : {listed, to_lower(listed), upper_hex}) {
    const auto hit = lists->find_address(form);
    ASSERT_TRUE(hit.has_value()) << form;
    EXPECT_FALSE(hit->list_asset.empty());
  }
  EXPECT_EQ(lists->find_address(to_lower(listed))->list_asset,
            lists->find_address(listed)->list_asset);
}

TEST(SanctionsListsTest, TronAddressMatchesOnlyExactly) {
  REQUIRE_REAL_LISTS(lists);
  const auto listed = listed_address_with("TRX", "abcdefghijklmnopqrstuvwxyz");
  ASSERT_FALSE(listed.empty()) << "no TRX address with lower-case letters";
  const auto hit = lists->find_address(listed);
  ASSERT_TRUE(hit.has_value()) << listed;
  EXPECT_TRUE(hit->list_asset == "TRX" || hit->list_asset == "USDT") << hit->list_asset;
  EXPECT_FALSE(lists->find_address(to_lower(listed)).has_value());
  EXPECT_FALSE(lists->find_address(listed + " ").has_value());
}

TEST(SanctionsListsTest, UnlistedAddressesDoNotMatch) {
  REQUIRE_REAL_LISTS(lists);
  EXPECT_FALSE(lists->find_address(kUnlistedEvmAddress).has_value());
  EXPECT_FALSE(lists->find_address("TPayrai1TestAddressNotListed0000zz").has_value());
  EXPECT_FALSE(lists->find_address("").has_value());
}

// "LAST, First" of the first individual row whose name has only plain letters and spaces.
std::pair<std::string, std::string> listed_individual() {
  static const std::regex kRow(
      R"re(^\d+,"([A-Z][A-Z ]+), ([A-Z][a-z]+(?: [A-Z][a-z]+)*)","individual",)re");
  for (const auto& line : read_lines(fs::path(data_directory()) / "ofac-sdn.csv")) {
    std::smatch match;
    if (std::regex_search(line, match, kRow)) return {match[1], match[2]};
  }
  return {};
}

TEST(SanctionsListsTest, PrimaryIndividualNameMatchesInOtherForms) {
  REQUIRE_REAL_LISTS(lists);
  const auto [last, first] = listed_individual();
  ASSERT_FALSE(last.empty()) << "no plain individual row in ofac-sdn.csv";
  EXPECT_TRUE(lists->name_listed(last + ", " + first));
  EXPECT_TRUE(lists->name_listed(first + " " + last)) << first << " " << last;
  EXPECT_TRUE(lists->name_listed(to_lower(first + " " + last)));
  EXPECT_TRUE(lists->name_listed("  " + to_upper(first) + "   " + to_lower(last) + ". "));
  EXPECT_TRUE(lists->name_listed(last + "; " + first + "!"));
  EXPECT_FALSE(lists->name_listed(first + " " + last + " Payrailtest"));
}

// An a.k.a. name (letters and spaces) from the Remarks of an individual or entity row.
std::string listed_alias() {
  static const std::regex kRow(
      R"re(^\d+,"[^"]*",(?:"individual"|-0- ),.*a\.k\.a\. '([A-Za-z ]+)';)re");
  for (const auto& line : read_lines(fs::path(data_directory()) / "ofac-sdn.csv")) {
    std::smatch match;
    if (std::regex_search(line, match, kRow)) return match[1];
  }
  return "";
}

TEST(SanctionsListsTest, AliasFromRemarksMatches) {
  REQUIRE_REAL_LISTS(lists);
  const auto alias = listed_alias();
  ASSERT_FALSE(alias.empty()) << "no a.k.a. in ofac-sdn.csv";
  EXPECT_TRUE(lists->name_listed(alias)) << alias;
  EXPECT_TRUE(lists->name_listed(to_lower(alias))) << alias;
}

TEST(SanctionsListsTest, UnlistedNameDoesNotMatch) {
  REQUIRE_REAL_LISTS(lists);
  EXPECT_FALSE(lists->name_listed("Quenby Payrailtest-Nonlisted"));
  EXPECT_FALSE(lists->name_listed(""));
  EXPECT_FALSE(lists->name_listed(" ,.; "));
}

TEST(SanctionsListsTest, VersionHashesTheFiles) {
  REQUIRE_REAL_LISTS(lists);
  EXPECT_TRUE(
      std::regex_match(lists->version(), std::regex("sdn:[0-9a-f]{12};addresses:[0-9a-f]{12}")))
      << lists->version();
  const auto sdn_hash = sha256_hex(read_file(fs::path(data_directory()) / "ofac-sdn.csv"));
  EXPECT_EQ(lists->version().substr(4, 12), sdn_hash.substr(0, 12));
}

TEST(SanctionsListsTest, MissingDirectoryFails) {
  const auto loaded = SanctionsLists::load("/nonexistent/payrail-sanctions");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, model::ErrorCode::sanctions_unavailable);
  EXPECT_NE(loaded.error().message.find("/nonexistent/payrail-sanctions"), std::string::npos);
}

TEST(SanctionsListsTest, MissingOrEmptyPartsFail) {
  ScratchCopy copy;
  fs::remove_all(copy.path() / "digital-currency-addresses");
  auto loaded = SanctionsLists::load(copy.path().string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, model::ErrorCode::sanctions_unavailable);
  EXPECT_NE(loaded.error().message.find("digital-currency-addresses"), std::string::npos);

  fs::create_directory(copy.path() / "digital-currency-addresses");
  std::ofstream(copy.address_file("ETH")) << "\n# no addresses\n";
  loaded = SanctionsLists::load(copy.path().string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, model::ErrorCode::sanctions_unavailable);

  fs::remove(copy.path() / "ofac-sdn.csv");
  loaded = SanctionsLists::load(copy.path().string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("ofac-sdn.csv"), std::string::npos);
}

TEST(SanctionsListsTest, BoundsSkipLongLinesAndRefuseLargeFiles) {
  ScratchCopy copy;
  copy.append(copy.address_file("TRX"), std::string(5000, 'T'));
  copy.append(copy.address_file("TRX"), "TPayrai1TestAddressAdded00000000zz");
  auto loaded = SanctionsLists::load(copy.path().string());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ((*loaded)->skipped_line_count(), 1u);
  EXPECT_TRUE((*loaded)->find_address("TPayrai1TestAddressAdded00000000zz").has_value());
  EXPECT_FALSE((*loaded)->find_address(std::string(5000, 'T')).has_value());

  fs::resize_file(copy.address_file("XMR"), 64u * 1024 * 1024 + 1);  // sparse, cheap
  loaded = SanctionsLists::load(copy.path().string());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, model::ErrorCode::sanctions_unavailable);
  EXPECT_NE(loaded.error().message.find("sanctioned_addresses_XMR.txt"), std::string::npos);
}

TEST(SanctionsListsTest, NewAddressFilesAreLoaded) {
  ScratchCopy copy;
  std::ofstream(copy.address_file("NEWCOIN")) << "PayrailNewCoinAddress1\r\n";
  std::ofstream(copy.path() / "digital-currency-addresses" / "other.txt") << "IgnoredAddress1\n";
  const auto loaded = SanctionsLists::load(copy.path().string());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const auto hit = (*loaded)->find_address("PayrailNewCoinAddress1");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->list_asset, "NEWCOIN");
  EXPECT_FALSE((*loaded)->find_address("IgnoredAddress1").has_value());
  EXPECT_NE((*loaded)->version(), real_lists() ? real_lists()->version() : "");
}

// A synthetic Windows-1252 sdn.csv (made-up rows): accents are folded, vessels are skipped.
TEST(SanctionsListsTest, Windows1252FileIsDecoded) {
  ScratchCopy copy;
  std::ofstream(copy.path() / "ofac-sdn.csv", std::ios::binary | std::ios::trunc)
      << "1,\"PAYRAILTEST M\xDCLLER, Jos\xE9\",\"individual\",\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- "
         ",-0- ,\"a.k.a. '\x8A\xC9VERINE, Zo\xEB'; f.k.a. 'O'BRIEN TEST'.\"\r\n"
      << "2,\"PAYRAILTEST VESSEL\",\"vessel\",\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n"
      << "3,\"PAYRAIL-TEST, S.A.\",-0- ,\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1A";
  const auto loaded = SanctionsLists::load(copy.path().string());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const auto& lists = **loaded;
  EXPECT_EQ(lists.name_count(), 4u);
  EXPECT_TRUE(lists.name_listed("José Payrailtest Müller"));
  EXPECT_TRUE(lists.name_listed("jose payrailtest muller"));
  EXPECT_TRUE(lists.name_listed("Zoë Séverine"));
  EXPECT_TRUE(lists.name_listed("zoe severine"));
  EXPECT_TRUE(lists.name_listed("O'Brien Test"));
  EXPECT_FALSE(lists.name_listed("Payrailtest Vessel"));
  // Hyphens and periods match both as word breaks and removed.
  EXPECT_TRUE(lists.name_listed("Payrail-Test SA"));
  EXPECT_TRUE(lists.name_listed("payrail test s.a."));
  EXPECT_TRUE(lists.name_listed("PAYRAILTEST S.A."));
}

// Keys are for comparing (the skeleton writes "m" as "rn"), so most checks compare two names.
TEST(SanctionsNormalizeTest, FoldsCasePunctuationOrderAndAccents) {
  const auto same = [](std::string_view left, std::string_view right) {
    return normalize_name(left) == normalize_name(right);
  };
  EXPECT_EQ(normalize_name("SMITH, John"), "john srnith");
  EXPECT_TRUE(same("john smith", "SMITH, John"));
  EXPECT_TRUE(same("John  SMITH.", "john smith"));
  EXPECT_TRUE(same("\tJohn\r\nSmith ", "john smith"));
  EXPECT_TRUE(same("José MÜLLER", "jose muller"));                  // UTF-8
  EXPECT_TRUE(same("Jos\xE9 M\xDCLLER", "jose muller"));            // Latin-1
  EXPECT_TRUE(same("\x8A\x9A\x8E\x9E\x8C", "sszzoe"));              // Windows-1252
  EXPECT_TRUE(same("Jose\xCC\x81 Mu\xCC\x88ller", "jose muller"));  // decomposed
  EXPECT_EQ(normalize_name("Straße Łódź Ærø Þór Đorđe"), "aero dorde lodz strasse thor");
  EXPECT_EQ(normalize_name("Nguyễn Ștefan Ağaoğlu"), "agaoglu nguyen stefan");
  EXPECT_EQ(normalize_name("O'Neill, Ann"), "ann oneill");
  EXPECT_EQ(normalize_name("O’Neill"), "oneill");
  EXPECT_EQ(normalize_name("AL-QAIDA"), "al qaida");
  EXPECT_TRUE(same("ИВАНОВ, Иван", "иван иванов"));
  EXPECT_FALSE(same("иван иванов", "ivan ivanov"));  // look-alikes match, transliterations do not
  EXPECT_EQ(normalize_name(""), "");
}

TEST(SanctionsWatcherTest, ReloadsOnChangeAndKeepsListsOnFailure) {
  ScratchCopy copy;
  SanctionsWatcher watcher(copy.path().string());
  EXPECT_EQ(watcher.current(), nullptr);
  auto reloaded = watcher.reload_if_changed();
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  EXPECT_TRUE(*reloaded);
  const auto first = watcher.current();
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(first->find_address(kAddedEvmAddress).has_value());

  reloaded = watcher.reload_if_changed();
  ASSERT_TRUE(reloaded.ok());
  EXPECT_FALSE(*reloaded);
  EXPECT_EQ(watcher.current(), first);

  copy.append(copy.address_file("ETH"), std::string(kAddedEvmAddress));
  reloaded = watcher.reload_if_changed();
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  EXPECT_TRUE(*reloaded);
  const auto second = watcher.current();
  EXPECT_NE(second->version(), first->version());
  EXPECT_EQ(second->version().substr(0, 17), first->version().substr(0, 17));  // same sdn part
  ASSERT_TRUE(second->find_address(to_lower(std::string(kAddedEvmAddress))).has_value());
  EXPECT_EQ(second->find_address(kAddedEvmAddress)->list_asset, "ETH");
  EXPECT_EQ(second->address_count(), first->address_count() + 1);
  EXPECT_FALSE(first->find_address(kAddedEvmAddress).has_value());  // old lists unchanged

  fs::remove(copy.path() / "ofac-sdn.csv");
  reloaded = watcher.reload_if_changed();
  ASSERT_FALSE(reloaded.ok());
  EXPECT_EQ(reloaded.error().code, model::ErrorCode::sanctions_unavailable);
  EXPECT_EQ(watcher.current(), second);
  EXPECT_FALSE(watcher.reload_if_changed(true).ok());
  EXPECT_EQ(watcher.current(), second);
}

TEST(SanctionsWatcherTest, MissingDirectoryLeavesNothingLoaded) {
  SanctionsWatcher watcher("/nonexistent/payrail-sanctions");
  const auto reloaded = watcher.reload_if_changed();
  ASSERT_FALSE(reloaded.ok());
  EXPECT_EQ(reloaded.error().code, model::ErrorCode::sanctions_unavailable);
  EXPECT_EQ(watcher.current(), nullptr);
}

}  // namespace
}  // namespace payrail::infra::sanctions
