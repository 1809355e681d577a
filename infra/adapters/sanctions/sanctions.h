// Sanctions lists: the OFAC SDN names (fiat beneficiary screening) and the sanctioned digital
// currency addresses (crypto destination screening), loaded from a data directory:
//   <dir>/ofac-sdn.csv
//   <dir>/digital-currency-addresses/sanctioned_addresses_<ASSET>.txt
// A loaded SanctionsLists never changes, so screening threads share it without locks; a
// SanctionsWatcher swaps in a new one when the files change.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "schemas/model/common/result.h"
#include "schemas/model/screening/name_key.h"

namespace payrail::infra::sanctions {

struct AddressHit {
  std::string list_asset;  // e.g. "ETH": the <ASSET> of the file that matched
};

class SanctionsLists {  // immutable after load; safe for concurrent reads
 public:
  // Loads everything under `directory`. Fails with ErrorCode::sanctions_unavailable (message
  // naming the file or directory) when the directory, ofac-sdn.csv or the address folder is
  // missing or unreadable, a file exceeds 64 MiB, or no address or no name could be loaded.
  // Lines over 4 KiB are skipped (see skipped_line_count()).
  static model::Result<std::shared_ptr<const SanctionsLists>> load(const std::string& directory);

  // Exact match. EVM hex addresses (0x + 40 hex) compare case-insensitively against every
  // list; any other address compares exactly (base58 and bech32 are case-sensitive).
  std::optional<AddressHit> find_address(std::string_view address) const;

  // True when `full_name` has the key (name_key.h: one normalization for every list and input)
  // of an SDN primary name or an a.k.a./f.k.a./n.k.a. name of an individual or entity row
  // (vessels and aircraft excluded). Hyphens and periods are tried both as word breaks and
  // removed, on both sides, so "AL-QAIDA" matches "Al Qaida" and "Alqaida", and "CIMEX, S.A."
  // matches "Cimex SA".
  bool name_listed(std::string_view full_name) const;

  // "sdn:<12 hex of sha256(ofac-sdn.csv)>;addresses:<12 hex of sha256 over the sorted address
  // file names and contents>", recorded with every screening decision.
  const std::string& version() const { return version_; }
  // Distinct (asset, address) entries over all address files.
  std::size_t address_count() const { return address_count_; }
  // Distinct normalized names (primary and alias) of individual and entity rows.
  std::size_t name_count() const { return name_count_; }
  // Lines skipped as overlong (> 4 KiB) or malformed CSV, over all files.
  std::size_t skipped_line_count() const { return skipped_line_count_; }

 private:
  SanctionsLists() = default;
  // Each returns the first 12 hex digits of its part of the version.
  model::Result<std::string> load_names(const std::string& csv_path);
  model::Result<std::string> load_addresses(const std::string& address_directory);

  // Exact-compare addresses and lower-cased EVM addresses, each mapped to the first asset (in
  // file-name order) that lists it.
  std::unordered_map<std::string, std::string> exact_addresses_;
  std::unordered_map<std::string, std::string> evm_addresses_;
  // Normalized names in both variants (hyphens and periods as word breaks, and removed).
  std::unordered_set<std::string> names_;
  std::string version_;
  std::size_t address_count_ = 0;
  std::size_t name_count_ = 0;
  std::size_t skipped_line_count_ = 0;
};

// The sanctions root shared by tests and services: $PAYRAIL_SANCTIONS_DIR when set, otherwise
// the snapshot shipped with the checkout (data/sanctions). Nothing outside the checkout is read.
std::optional<std::string> find_default_sanctions_directory();

// `payrail sanctions-update` installs snapshots under <root>/snapshots/ and points the symlink
// <root>/current at the one in use; a root without `current` is itself the snapshot.
inline constexpr std::string_view kCurrentSnapshotLink = "current";
std::string snapshot_directory(const std::string& root);

// Watches a sanctions root and reloads when the snapshot in use (see snapshot_directory) changes
// or is swapped; used by the screening worker.
// Construction does no I/O: call reload_if_changed() once to load (and see any error).
class SanctionsWatcher {
 public:
  explicit SanctionsWatcher(std::string directory);

  // The current lists, or nullptr when nothing could ever be loaded. One atomic load.
  std::shared_ptr<const SanctionsLists> current() const { return current_.load(); }

  // Re-reads the files when their (name, size, mtime) fingerprint changed since the last
  // successful load, or when `force` is true. A failed reload keeps the previous lists and
  // returns the error. Returns true when a new version was loaded (files touched but with the
  // same content reload and return false, keeping the current object). Serialized internally.
  model::Result<bool> reload_if_changed(bool force = false);

  const std::string& directory() const { return directory_; }

 private:
  struct FileStamp {
    std::string name;
    std::uintmax_t size = 0;
    std::int64_t modified_nanoseconds = 0;
    bool operator==(const FileStamp&) const = default;
  };
  std::vector<FileStamp> fingerprint() const;

  const std::string directory_;
  std::atomic<std::shared_ptr<const SanctionsLists>> current_;
  std::mutex reload_mutex_;
  std::optional<std::vector<FileStamp>> loaded_fingerprint_;  // guarded by reload_mutex_
};

}  // namespace payrail::infra::sanctions
