// The internal screening blacklist, managed by operators (payrail blacklist-*), both modes.
#pragma once

#include <pqxx/pqxx>

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "infra/plumbing/pg/pool.h"

namespace payrail::infra::store::blacklist {

struct Entry {
  long id = 0;
  std::string kind;  // address | name
  std::string value;
  std::string reason;
  std::string created_at;
};

// `normalized` is the screening form (lower-case for EVM addresses, model::normalize_name
// for names, stored with model::name_key_version()).
model::Status add(pg::Pool& pool, const std::string& kind, const std::string& value,
                  const std::string& normalized, const std::string& reason);
model::Result<bool> remove(pg::Pool& pool, const std::string& kind, const std::string& normalized);
model::Result<std::vector<Entry>> list(pg::Pool& pool);

bool contains(pqxx::work& tx, const std::string& kind, const std::string& normalized);

// Names stored under another version of the name normalization get today's key, computed from
// their `value`. A name whose new key another entry already has is that entry's duplicate and is
// removed (the older entry, with its reason, stays). Serialized across processes; a no-op (one
// statement) when every key is current.
struct Rekeyed {
  long rekeyed = 0;  // keys rewritten (or confirmed) under the current version
  long merged = 0;   // duplicates removed
};
model::Result<Rekeyed> rekey_names(pg::Pool& pool);

// What identifies the blacklist's content: ids are never reused, so an add raises the highest
// id and a removal lowers the count; either changes it.
struct Revision {
  long max_id = 0;
  long count = 0;
  bool operator==(const Revision&) const = default;
};

// Every entry as screening matches it (kind, normalized), as of one statement. A name stored
// under another version of the normalization is matched by its key computed now from its value,
// so an entry written before an upgrade (or by an older binary) is never missed.
struct Entries {
  std::set<std::pair<std::string, std::string>> entries;
  Revision revision;
  bool contains(const std::string& kind, const std::string& normalized) const {
    return entries.contains({kind, normalized});
  }
};

// The blacklist kept by a screening worker between batches, so that a batch asks one statement
// (the revision) instead of one per payout, and reads the entries again only when they changed.
// Above `entries_max` entries nothing is kept, and current() returns nullptr: screening then asks
// contains() per payout.
class Cache {
 public:
  explicit Cache(long entries_max = 10000) : entries_max_(entries_max) {}
  // The entries as of this call (a read: any transaction), or nullptr when there are too many.
  std::shared_ptr<const Entries> current(pqxx::transaction_base& tx);

 private:
  long entries_max_;
  std::mutex mutex_;
  std::optional<Revision> revision_;  // of entries_, or of a blacklist too large to keep
  std::shared_ptr<const Entries> entries_;
};

}  // namespace payrail::infra::store::blacklist
