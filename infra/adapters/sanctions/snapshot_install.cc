#include "infra/adapters/sanctions/snapshot_install.h"

#include <filesystem>
#include <system_error>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra::sanctions {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSnapshotsFolder = "snapshots";
constexpr std::string_view kAddressFolder = "digital-currency-addresses";
constexpr std::string_view kAddressFilePrefix = "sanctioned_addresses_";
constexpr std::string_view kLicenseFile = "LICENSE";

model::Error refused(std::string message) {
  return model::Error::make(model::ErrorCode::bad_request, std::move(message));
}

// "sdn:0123456789ab;addresses:ba9876543210" -> "sdn-0123456789ab-addresses-ba9876543210"
std::string folder_name_of(std::string version) {
  for (char& c : version) {
    if (c == ':' || c == ';') c = '-';
  }
  return version;
}

// Copies the address lists (and their license) the operator downloaded into the staging folder.
model::Status copy_address_files(const fs::path& from, const fs::path& to) {
  std::error_code error;
  if (!fs::is_directory(from, error)) return refused("not a directory: " + from.string());
  fs::create_directories(to, error);
  if (error) return refused("cannot create " + to.string() + ": " + error.message());
  for (const auto& entry : fs::directory_iterator(from, error)) {
    const auto name = entry.path().filename().string();
    const bool wanted =
        name == kLicenseFile || (name.starts_with(kAddressFilePrefix) && name.ends_with(".txt"));
    if (!wanted || !entry.is_regular_file()) continue;
    fs::copy_file(entry.path(), to / name, error);
    if (error) return refused("cannot copy " + entry.path().string() + ": " + error.message());
  }
  if (error) return refused("cannot list " + from.string() + ": " + error.message());
  return model::ok_status();
}

// The address lists are MIT-licensed: a snapshot always carries the license text.
void keep_license(const fs::path& staging, const std::string& previous_directory) {
  const auto target = staging / kAddressFolder / kLicenseFile;
  std::error_code error;
  if (fs::exists(target, error) || previous_directory.empty()) return;
  fs::copy_file(fs::path(previous_directory) / kAddressFolder / kLicenseFile, target, error);
}

model::Status check_counts(const SanctionsLists& candidate, const SanctionsLists* previous,
                           bool force) {
  if (candidate.name_count() < kSnapshotNamesMin) {
    return refused("implausible snapshot: " + std::to_string(candidate.name_count()) +
                   " names (at least " + std::to_string(kSnapshotNamesMin) + " expected)");
  }
  if (candidate.address_count() < kSnapshotAddressesMin) {
    return refused("implausible snapshot: " + std::to_string(candidate.address_count()) +
                   " addresses (at least " + std::to_string(kSnapshotAddressesMin) + " expected)");
  }
  if (previous == nullptr || force) return model::ok_status();
  const auto shrinks_too_much = [](std::size_t now, std::size_t before) {
    return now * 100 < before * (100 - kSnapshotShrinkPercentMax);
  };
  if (shrinks_too_much(candidate.name_count(), previous->name_count()) ||
      shrinks_too_much(candidate.address_count(), previous->address_count())) {
    return refused("the new snapshot has " + std::to_string(candidate.name_count()) +
                   " names and " + std::to_string(candidate.address_count()) +
                   " addresses against " + std::to_string(previous->name_count()) + " and " +
                   std::to_string(previous->address_count()) + " in use: more than " +
                   std::to_string(kSnapshotShrinkPercentMax) +
                   "% fewer; check the files, or pass --force");
  }
  return model::ok_status();
}

// Points <root>/current at the snapshot: a new symlink renamed over the old one (atomic).
model::Status point_current_at(const fs::path& root, const std::string& folder) {
  const auto temporary = root / (".current-" + crypto::random_base62(8));
  std::error_code error;
  fs::create_directory_symlink(fs::path(kSnapshotsFolder) / folder, temporary, error);
  if (error) return refused("cannot create a symlink in " + root.string() + ": " + error.message());
  fs::rename(temporary, root / kCurrentSnapshotLink, error);
  if (error) {
    fs::remove(temporary);
    return refused("cannot replace " + (root / kCurrentSnapshotLink).string() + ": " +
                   error.message());
  }
  return model::ok_status();
}

struct Staged {
  fs::path directory;
  std::shared_ptr<const SanctionsLists> lists;
};

model::Result<Staged> stage(const SnapshotSource& source, const std::string& previous_directory) {
  const auto staging =
      fs::path(source.root) / kSnapshotsFolder / (".staging-" + crypto::random_base62(12));
  std::error_code error;
  fs::create_directories(staging, error);
  if (error) return refused("cannot create " + staging.string() + ": " + error.message());
  fs::copy_file(source.sdn_file, staging / "ofac-sdn.csv", error);
  if (error) return refused("cannot copy " + source.sdn_file + ": " + error.message());
  if (auto copied = copy_address_files(source.addresses_directory, staging / kAddressFolder);
      !copied.ok()) {
    return copied.error();
  }
  keep_license(staging, previous_directory);
  auto loaded = SanctionsLists::load(staging.string());
  if (!loaded.ok()) return refused("the new files do not parse: " + loaded.error().message);
  return Staged{staging, std::move(loaded.value())};
}

}  // namespace

model::Result<InstalledSnapshot> install_snapshot(const SnapshotSource& source) {
  const auto root = fs::path(source.root);
  const auto previous_directory = snapshot_directory(source.root);
  const auto previous = SanctionsLists::load(previous_directory);
  auto staged = stage(source, previous.ok() ? previous_directory : "");
  if (!staged.ok()) return staged.error();
  const auto discard = [&] {
    std::error_code ignored;
    fs::remove_all(staged->directory, ignored);
  };
  const auto& lists = *staged->lists;
  if (auto checked = check_counts(lists, previous.ok() ? previous->get() : nullptr, source.force);
      !checked.ok()) {
    discard();
    return checked.error();
  }
  InstalledSnapshot installed{.version = lists.version(),
                              .previous_version = previous.ok() ? (*previous)->version() : "",
                              .name_count = lists.name_count(),
                              .address_count = lists.address_count()};
  installed.unchanged = installed.version == installed.previous_version;
  const auto folder = folder_name_of(lists.version());
  const auto target = root / kSnapshotsFolder / folder;
  std::error_code error;
  if (fs::exists(target, error)) {
    discard();  // the same content was installed before: reuse it
  } else {
    fs::rename(staged->directory, target, error);
    if (error) {
      discard();
      return refused("cannot move the snapshot into place: " + error.message());
    }
  }
  installed.directory = target.string();
  if (auto pointed = point_current_at(root, folder); !pointed.ok()) return pointed.error();
  return installed;
}

}  // namespace payrail::infra::sanctions
