// Screening commands: the internal blacklist and the sanctions snapshot in use.
#include <cstdio>
#include <optional>
#include <string>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/adapters/sanctions/snapshot_install.h"
#include "infra/programs/cli/command_table.h"
#include "infra/store/screening/blacklist.h"
#include "infra/store/screening/screening_workers.h"
#include "schemas/model/payouts/destination.h"

namespace payrail::infra::cli {
namespace {

// The blacklist compares addresses the way screening does: EVM addresses in lower case.
std::string normalized_address(const std::string& address) {
  const bool evm = address.size() == 42 && address.rfind("0x", 0) == 0;
  return evm ? model::normalize_address_for_screening(model::Network::ethereum, address) : address;
}

// The entry named by --address or --name (exactly one): kind, value as given, screening form.
// Names compare the way fiat screening does: normalize_name (schemas/model/screening/name_key.h:
// case, accents, punctuation, word order, invisible and look-alike characters do not matter).
struct BlacklistEntry {
  std::string kind;
  std::string value;
  std::string normalized;
};

std::optional<BlacklistEntry> entry_of(const Options& options) {
  const auto address = option(options, "address");
  const auto name = option(options, "name");
  if (address.has_value() == name.has_value()) return std::nullopt;
  if (address) return BlacklistEntry{"address", *address, normalized_address(*address)};
  const auto normalized = model::normalize_name(*name);
  if (normalized.empty()) return std::nullopt;
  return BlacklistEntry{"name", *name, normalized};
}

// Names keyed by an earlier normalization are re-keyed first, so that an add or a removal by
// name finds them.
bool rekeyed(pg::Pool& pool) {
  auto done = store::blacklist::rekey_names(pool);
  if (!done.ok()) fail(done.error().message);
  return done.ok();
}

int blacklist_add(const Config& config, const Options& options) {
  const auto entry = entry_of(options);
  if (!entry) return fail("blacklist-add needs --address 0x... or --name \"Full Name\"");
  auto pool = open_pool(config);
  if (!rekeyed(pool)) return 1;
  return report(store::blacklist::add(pool, entry->kind, entry->value, entry->normalized,
                                      option(options, "reason").value_or("")),
                "blacklisted " + entry->kind + " " + entry->value);
}

int blacklist_remove(const Config& config, const Options& options) {
  const auto entry = entry_of(options);
  if (!entry) return fail("blacklist-remove needs --address 0x... or --name \"Full Name\"");
  auto pool = open_pool(config);
  if (!rekeyed(pool)) return 1;
  auto removed = store::blacklist::remove(pool, entry->kind, entry->normalized);
  if (!removed.ok()) return fail(removed.error().message);
  if (!*removed) return fail(entry->value + " is not blacklisted");
  std::printf("removed %s %s\n", entry->kind.c_str(), entry->value.c_str());
  return 0;
}

int blacklist_list(const Config& config, const Options&) {
  auto pool = open_pool(config);
  auto entries = store::blacklist::list(pool);
  if (!entries.ok()) return fail(entries.error().message);
  for (const auto& entry : *entries) {
    std::printf("%s\t%s\t%s\t%s\n", entry.created_at.c_str(), entry.kind.c_str(),
                entry.value.c_str(), entry.reason.c_str());
  }
  return 0;
}

std::optional<std::string> sanctions_root(const Config& config) {
  if (config.sanctions_dir) return config.sanctions_dir;
  return sanctions::find_default_sanctions_directory();
}

// sanctions-update --sdn sdn.csv --addresses <folder> [--force]
int sanctions_update(const Config& config, const Options& options) {
  const auto sdn = option(options, "sdn");
  const auto addresses = option(options, "addresses");
  if (!sdn || !addresses)
    return fail("sanctions-update needs --sdn <sdn.csv> --addresses <folder>");
  const auto root = sanctions_root(config);
  if (!root) return fail("no sanctions directory: set PAYRAIL_SANCTIONS_DIR");
  auto installed = sanctions::install_snapshot({.root = *root,
                                                .sdn_file = *sdn,
                                                .addresses_directory = *addresses,
                                                .force = flag(options, "force")});
  if (!installed.ok()) return fail(installed.error().message);
  std::printf("%s %s (%zu names, %zu addresses; was %s)\n",
              installed->unchanged ? "unchanged:" : "installed", installed->version.c_str(),
              installed->name_count, installed->address_count,
              installed->previous_version.empty() ? "none" : installed->previous_version.c_str());
  std::printf("screening workers load it at their next reload check\n");
  return 0;
}

// The snapshot on disk and the version each live screening worker has loaded.
int sanctions_status(const Config& config, const Options&) {
  const auto root = sanctions_root(config);
  if (!root) return fail("no sanctions directory: set PAYRAIL_SANCTIONS_DIR");
  const auto directory = sanctions::snapshot_directory(*root);
  auto lists = sanctions::SanctionsLists::load(directory);
  if (!lists.ok()) return fail(lists.error().message);
  std::printf("on disk\t%s\t%s\t%zu names\t%zu addresses\n", (*lists)->version().c_str(),
              directory.c_str(), (*lists)->name_count(), (*lists)->address_count());
  auto pool = open_pool(config);
  auto workers = store::screening_workers::list_live(pool);
  if (!workers.ok()) return fail(workers.error().message);
  for (const auto& worker : *workers) {
    std::printf("worker\t%s\t%s\n", worker.list_version.value_or("(none loaded)").c_str(),
                worker.worker_id.c_str());
  }
  return 0;
}

}  // namespace

void add_screening_commands(CommandTable& table) {
  table["blacklist-add"] = {"blacklist-add --address 0x... | --name \"Full Name\" [--reason text]",
                            "add a destination address or a beneficiary name to the blacklist",
                            blacklist_add};
  table["blacklist-remove"] = {"blacklist-remove --address 0x... | --name \"Full Name\"",
                               "remove an address or a name from the blacklist", blacklist_remove};
  table["blacklist-list"] = {"blacklist-list", "list the internal blacklist", blacklist_list};
  table["sanctions-update"] = {
      "sanctions-update --sdn sdn.csv --addresses <folder> [--force]",
      "validate and install a newer OFAC snapshot; workers reload it without restart",
      sanctions_update};
  table["sanctions-status"] = {"sanctions-status",
                               "the sanctions snapshot on disk and the version each worker uses",
                               sanctions_status};
}

}  // namespace payrail::infra::cli
