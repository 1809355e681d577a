// `payrail sanctions-update`: a downloaded snapshot is validated (parse, plausible counts, no
// shrink beyond the bound without --force), installed under <root>/snapshots/ and swapped in by
// re-pointing <root>/current; a watcher on the root reloads the new lists without a restart.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/adapters/sanctions/snapshot_install.h"

namespace payrail::infra::sanctions {
namespace {

namespace fs = std::filesystem;

const std::string kAddedAddress = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF42";

fs::path scratch_directory() {
  std::string pattern = (fs::temp_directory_path() / "payrail-update-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

// A writable copy of the shipped snapshot: the root the workers would load.
class SnapshotUpdate : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = scratch_directory();
    root_ = scratch_ / "root";
    download_ = scratch_ / "download";
    fs::copy(*find_default_sanctions_directory(), root_, fs::copy_options::recursive);
    fs::create_directories(download_ / "addresses");
    for (const auto& entry : fs::directory_iterator(root_ / "digital-currency-addresses")) {
      if (entry.path().filename() == "LICENSE") continue;  // downloads come without it
      fs::copy_file(entry.path(), download_ / "addresses" / entry.path().filename());
    }
    fs::copy_file(root_ / "ofac-sdn.csv", download_ / "sdn.csv");
    for (const auto& entry : fs::recursive_directory_iterator(scratch_)) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
    }
  }
  void TearDown() override { fs::remove_all(scratch_); }

  SnapshotSource source(bool force = false) const {
    return {.root = root_.string(),
            .sdn_file = (download_ / "sdn.csv").string(),
            .addresses_directory = (download_ / "addresses").string(),
            .force = force};
  }
  void add_address(const std::string& address) const {
    std::ofstream(download_ / "addresses" / "sanctioned_addresses_ETH.txt", std::ios::app)
        << "\n"
        << address << "\n";
  }
  // Keeps the header-less CSV's first `share` percent of lines.
  void truncate_sdn(int percent_kept) const {
    std::ifstream in(download_ / "sdn.csv", std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::ofstream out(download_ / "sdn.csv", std::ios::binary | std::ios::trunc);
    for (std::size_t i = 0; i < lines.size() * percent_kept / 100; ++i) out << lines[i] << "\n";
  }

  fs::path scratch_, root_, download_;
};

TEST_F(SnapshotUpdate, InstallsSwapsCurrentAndTheWatcherReloads) {
  SanctionsWatcher watcher(root_.string());
  ASSERT_TRUE(watcher.reload_if_changed().ok());
  const auto before = watcher.current()->version();
  EXPECT_FALSE(watcher.current()->find_address(kAddedAddress));

  add_address(kAddedAddress);
  auto installed = install_snapshot(source());
  ASSERT_TRUE(installed.ok()) << installed.error().message;
  EXPECT_EQ(installed->previous_version, before);
  EXPECT_NE(installed->version, before);
  EXPECT_FALSE(installed->unchanged);
  EXPECT_TRUE(fs::is_symlink(root_ / "current"));
  EXPECT_EQ(fs::canonical(snapshot_directory(root_.string())), fs::canonical(installed->directory));
  // The address lists' MIT license travels with every snapshot.
  EXPECT_TRUE(fs::is_regular_file(fs::path(installed->directory) / "digital-currency-addresses" /
                                  "LICENSE"));

  auto reloaded = watcher.reload_if_changed();
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  EXPECT_TRUE(*reloaded);
  EXPECT_EQ(watcher.current()->version(), installed->version);
  EXPECT_TRUE(watcher.current()->find_address(kAddedAddress));
}

TEST_F(SnapshotUpdate, SameFilesAgainAreUnchanged) {
  add_address(kAddedAddress);
  ASSERT_TRUE(install_snapshot(source()).ok());
  auto again = install_snapshot(source());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->unchanged);
}

TEST_F(SnapshotUpdate, UnparseableFilesAreRefusedAndNothingChanges) {
  std::ofstream(download_ / "sdn.csv", std::ios::trunc) << "this is not the SDN list\n";
  auto installed = install_snapshot(source(true));
  ASSERT_FALSE(installed.ok());
  EXPECT_NE(installed.error().message.find("do not parse"), std::string::npos)
      << installed.error().message;
  EXPECT_FALSE(fs::exists(root_ / "current"));
  EXPECT_EQ(snapshot_directory(root_.string()), root_.string());
}

TEST_F(SnapshotUpdate, ImplausiblyFewAddressesAreRefusedEvenWithForce) {
  for (const auto& entry : fs::directory_iterator(download_ / "addresses")) fs::remove(entry);
  std::ofstream(download_ / "addresses" / "sanctioned_addresses_ETH.txt") << kAddedAddress << "\n";
  auto installed = install_snapshot(source(true));
  ASSERT_FALSE(installed.ok());
  EXPECT_NE(installed.error().message.find("implausible"), std::string::npos)
      << installed.error().message;
  EXPECT_FALSE(fs::exists(root_ / "current"));
}

TEST_F(SnapshotUpdate, ShrinkBeyondTheBoundNeedsForce) {
  truncate_sdn(80);  // a fifth of the names gone: beyond the 10% bound
  auto refused = install_snapshot(source());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--force"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(fs::exists(root_ / "current"));

  auto forced = install_snapshot(source(true));
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_LT(forced->name_count, SanctionsLists::load(root_.string()).value()->name_count());
  EXPECT_TRUE(fs::is_symlink(root_ / "current"));
}

}  // namespace
}  // namespace payrail::infra::sanctions
