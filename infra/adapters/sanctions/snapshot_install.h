// Installing a newer sanctions snapshot (`payrail sanctions-update`): files an operator
// downloaded in the formats OFAC publishes (sdn.csv, and the digital-currency address lists
// sanctioned_addresses_<ASSET>.txt) are staged under <root>/snapshots/, validated, and made the
// snapshot in use by atomically re-pointing the symlink <root>/current. Screening workers notice
// the swap on their next reload check (no restart); the lists in use before stay in place.
#pragma once

#include <cstddef>
#include <string>

#include "schemas/model/common/result.h"

namespace payrail::infra::sanctions {

struct SnapshotSource {
  std::string root;                 // the sanctions root the workers load (PAYRAIL_SANCTIONS_DIR)
  std::string sdn_file;             // a downloaded sdn.csv
  std::string addresses_directory;  // a folder of sanctioned_addresses_<ASSET>.txt (+ LICENSE)
  bool force = false;               // accept a shrink beyond shrink_percent_max
};

// Plausibility bounds: a real SDN list has ~15,000 entries and the address lists ~1,000; a file
// far below these is a truncated download or the wrong file.
inline constexpr std::size_t kSnapshotNamesMin = 1000;
inline constexpr std::size_t kSnapshotAddressesMin = 100;
// A new snapshot may drop at most this share of the names or addresses in use without --force.
inline constexpr int kSnapshotShrinkPercentMax = 10;

struct InstalledSnapshot {
  std::string version;
  std::string previous_version;  // empty when no snapshot could be loaded before
  std::string directory;         // where the new snapshot lives
  std::size_t name_count = 0;
  std::size_t address_count = 0;
  bool unchanged = false;  // the new files are the snapshot already in use
};

// Validates and installs; on any error nothing in use changes. Errors name the problem: a parse
// failure, an implausible count, or a shrink beyond the bound without `force`.
model::Result<InstalledSnapshot> install_snapshot(const SnapshotSource& source);

}  // namespace payrail::infra::sanctions
