#include "infra/adapters/sanctions/sanctions.h"

#include "infra/plumbing/crypto/crypto.h"
#include "schemas/model/common/source_tree.h"
#include "schemas/model/screening/name_key.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

namespace payrail::infra::sanctions {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxFileBytes = 64u * 1024 * 1024;
constexpr std::size_t kMaxLineBytes = 4 * 1024;
constexpr std::size_t kVersionHexDigits = 12;
constexpr std::string_view kSdnFileName = "ofac-sdn.csv";
constexpr std::string_view kAddressFolderName = "digital-currency-addresses";
constexpr std::string_view kAddressFilePrefix = "sanctioned_addresses_";
constexpr std::string_view kAddressFileSuffix = ".txt";
constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";
constexpr std::string_view kBlank = " \t\r\n\v\f\x1A";  // 0x1A: DOS end-of-file marker (sdn.csv)

model::Error unavailable(std::string message) {
  return model::Error::make(model::ErrorCode::sanctions_unavailable, std::move(message));
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlank) - first + 1);
}

std::string lower_ascii(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// Reads in chunks so that a file growing after the size check still cannot exceed the bound.
model::Result<std::string> read_bounded_file(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    return unavailable("sanctions file missing: " + path.string());
  }
  const auto size = fs::file_size(path, error);
  if (!error && size > kMaxFileBytes) {
    return unavailable("sanctions file exceeds 64 MiB: " + path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return unavailable("cannot open sanctions file: " + path.string());
  std::string content;
  std::string buffer(64 * 1024, '\0');
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    const auto count = static_cast<std::size_t>(in.gcount());
    if (content.size() + count > kMaxFileBytes) {
      return unavailable("sanctions file exceeds 64 MiB: " + path.string());
    }
    content.append(buffer.data(), count);
  }
  if (in.bad()) return unavailable("cannot read sanctions file: " + path.string());
  return content;
}

// Calls `visit` with each line (without its line break); returns how many overlong lines were
// skipped instead.
template <class Visit>
std::size_t for_each_line(std::string_view content, const Visit& visit) {
  std::size_t skipped = 0;
  std::size_t start = 0;
  while (start < content.size()) {
    auto end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxLineBytes) {
      ++skipped;
    } else {
      visit(line);
    }
    start = end + 1;
  }
  return skipped;
}

// A file is decoded as a whole (not name by name) so that a Windows-1252 name can never be
// mistaken for UTF-8 because its few accented bytes happen to form a valid sequence.
std::string file_text_as_utf8(std::string_view content) {
  if (content.starts_with(kUtf8ByteOrderMark)) content.remove_prefix(kUtf8ByteOrderMark.size());
  return model::utf8_from_utf8_or_windows1252(content);
}

// ---- sdn.csv parsing. ----

// One CSV record per line (sdn.csv never breaks a field across lines). Quoted fields may hold
// commas and doubled quotes; unquoted fields are trimmed (sdn.csv writes "-0- "). nullopt when
// a quote is left open or text follows a closing quote.
std::optional<std::vector<std::string>> parse_csv_line(std::string_view line) {
  std::vector<std::string> fields;
  std::size_t index = 0;
  while (true) {
    while (index < line.size() && (line[index] == ' ' || line[index] == '\t')) ++index;
    std::string field;
    if (index < line.size() && line[index] == '"') {
      for (++index;; ++index) {
        if (index >= line.size()) return std::nullopt;
        if (line[index] != '"') {
          field += line[index];
        } else if (index + 1 < line.size() && line[index + 1] == '"') {
          field += '"';
          ++index;
        } else {
          break;
        }
      }
      index = line.find_first_not_of(" \t", index + 1);
      if (index != std::string_view::npos && line[index] != ',') return std::nullopt;
    } else {
      const auto comma = line.find(',', index);
      field = trim(line.substr(index, comma == std::string_view::npos ? comma : comma - index));
      index = comma;
    }
    fields.push_back(std::move(field));
    if (index == std::string_view::npos || index >= line.size()) return fields;
    ++index;  // past the comma
  }
}

bool is_screened_type(std::string_view sdn_type) {
  // "-0-" (empty) is how sdn.csv types entities; vessels and aircraft are not beneficiaries.
  const auto type = lower_ascii(trim(sdn_type));
  return type == "individual" || type == "-0-" || type.empty() || type == "entity";
}

char lower_ascii_char(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Where "a.k.a.", "f.k.a." or "n.k.a." (any case) starts at or after `from`, or npos.
std::size_t find_alias_marker(std::string_view text, std::size_t from) {
  for (auto dot = text.find('.', from + 1); dot != std::string_view::npos;
       dot = text.find('.', dot + 1)) {
    if (dot + 4 >= text.size()) break;
    const char kind = lower_ascii_char(text[dot - 1]);
    if ((kind == 'a' || kind == 'f' || kind == 'n') && lower_ascii_char(text[dot + 1]) == 'k' &&
        text[dot + 2] == '.' && lower_ascii_char(text[dot + 3]) == 'a' && text[dot + 4] == '.') {
      return dot - 1;
    }
  }
  return std::string_view::npos;
}

// The quote closing an alias started at `open`: the first one followed by ';', by '.' and a
// space or the end, or by the end. Quotes inside names ("ABU 'AMMAR", "MERA'I") are followed by
// letters or spaces. npos when the alias is cut off (sdn.csv truncates long Remarks).
std::size_t alias_close(std::string_view remarks, std::size_t open) {
  for (auto quote = remarks.find('\'', open + 1); quote != std::string_view::npos;
       quote = remarks.find('\'', quote + 1)) {
    const auto after = remarks.substr(quote + 1);
    if (after.empty() || after[0] == ';') return quote;
    if (after[0] == '.' && (after.size() == 1 || after[1] == ' ')) return quote;
  }
  return std::string_view::npos;
}

// Names from "a.k.a. 'NAME'; f.k.a. 'NAME'; n.k.a. 'NAME'" in a Remarks field.
std::vector<std::string_view> remark_aliases(std::string_view remarks) {
  std::vector<std::string_view> aliases;
  for (auto index = find_alias_marker(remarks, 0); index != std::string_view::npos;
       index = find_alias_marker(remarks, index + 1)) {
    const auto open = remarks.find_first_not_of(' ', index + 6);
    if (open == std::string_view::npos || remarks[open] != '\'') continue;
    const auto close = alias_close(remarks, open);
    if (close == std::string_view::npos) break;
    aliases.push_back(remarks.substr(open + 1, close - open - 1));
    index = close;
  }
  return aliases;
}

// ---- Digital currency addresses. ----

bool is_evm_address(std::string_view address) {
  if (address.size() != 42 || address[0] != '0' || (address[1] != 'x' && address[1] != 'X')) {
    return false;
  }
  return std::all_of(address.begin() + 2, address.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// "sanctioned_addresses_<ASSET>.txt" -> ASSET; nullopt for any other file name.
std::optional<std::string> address_file_asset(std::string_view file_name) {
  if (!file_name.starts_with(kAddressFilePrefix) || !file_name.ends_with(kAddressFileSuffix)) {
    return std::nullopt;
  }
  const auto asset =
      file_name.substr(kAddressFilePrefix.size(),
                       file_name.size() - kAddressFilePrefix.size() - kAddressFileSuffix.size());
  const bool well_formed = !asset.empty() && std::all_of(asset.begin(), asset.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  if (!well_formed) return std::nullopt;
  return std::string(asset);
}

struct AddressFile {
  std::string name;
  std::string asset;
  fs::path path;
};

// The address files of `folder`, sorted by file name (the version hash depends on the order).
model::Result<std::vector<AddressFile>> list_address_files(const fs::path& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    return unavailable("sanctions address folder missing: " + folder.string());
  }
  std::vector<AddressFile> files;
  fs::directory_iterator entries(folder, error);
  for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
    auto name = entries->path().filename().string();
    auto asset = address_file_asset(name);
    std::error_code status_error;
    if (!asset || !fs::is_regular_file(entries->path(), status_error)) continue;
    files.push_back({std::move(name), std::move(*asset), entries->path()});
  }
  if (error) {
    return unavailable("cannot list sanctions address folder " + folder.string() + ": " +
                       error.message());
  }
  std::sort(files.begin(), files.end(),
            [](const auto& left, const auto& right) { return left.name < right.name; });
  return files;
}

}  // namespace

// ---- SanctionsLists. ----

model::Result<std::shared_ptr<const SanctionsLists>> SanctionsLists::load(
    const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return unavailable("sanctions directory missing: " + directory);
  }
  std::shared_ptr<SanctionsLists> lists(new SanctionsLists());
  auto sdn_digest = lists->load_names((fs::path(directory) / kSdnFileName).string());
  if (!sdn_digest) return std::move(sdn_digest).error();
  auto address_digest = lists->load_addresses((fs::path(directory) / kAddressFolderName).string());
  if (!address_digest) return std::move(address_digest).error();
  lists->version_ = "sdn:" + *sdn_digest + ";addresses:" + *address_digest;
  return std::shared_ptr<const SanctionsLists>(std::move(lists));
}

model::Result<std::string> SanctionsLists::load_names(const std::string& csv_path) {
  auto content = read_bounded_file(csv_path);
  if (!content) return std::move(content).error();
  const auto digest_hex = crypto::sha256_hex(*content);
  const std::string text = file_text_as_utf8(*content);
  std::unordered_set<std::string> primary_keys;  // one variant per name, for name_count()
  auto add_name = [&](std::string_view name) {
    auto keys = model::name_keys(name);
    if (keys.word_break.empty()) return;
    names_.insert(std::move(keys.drop));
    names_.insert(keys.word_break);
    primary_keys.insert(std::move(keys.word_break));
  };
  skipped_line_count_ += for_each_line(text, [&](std::string_view line) {
    const auto fields = parse_csv_line(line);
    if (!fields) {
      ++skipped_line_count_;
      return;
    }
    if (fields->size() < 3 || !is_screened_type((*fields)[2])) return;
    add_name((*fields)[1]);
    if (fields->size() > 11) {
      for (const auto alias : remark_aliases((*fields)[11])) add_name(alias);
    }
  });
  name_count_ = primary_keys.size();
  if (name_count_ == 0) return unavailable("no sanctioned names in " + csv_path);
  return digest_hex.substr(0, kVersionHexDigits);
}

model::Result<std::string> SanctionsLists::load_addresses(const std::string& address_directory) {
  auto files = list_address_files(address_directory);
  if (!files) return std::move(files).error();
  std::string framed;                       // what the version digest covers
  std::unordered_set<std::string> entries;  // "<asset>\n<address>"
  for (const auto& file : *files) {
    auto content = read_bounded_file(file.path);
    if (!content) return std::move(content).error();
    // Name and length framing keep the digest unambiguous across file boundaries.
    framed += file.name + "\n" + std::to_string(content->size()) + "\n";
    framed += *content;
    std::string_view text = *content;
    if (text.starts_with(kUtf8ByteOrderMark)) text.remove_prefix(kUtf8ByteOrderMark.size());
    skipped_line_count_ += for_each_line(text, [&](std::string_view line) {
      const auto address = trim(line);
      if (address.empty() || address.front() == '#') return;
      if (!entries.insert(file.asset + "\n" + std::string(address)).second) return;
      if (is_evm_address(address)) {
        evm_addresses_.try_emplace(lower_ascii(address), file.asset);
      } else {
        exact_addresses_.try_emplace(std::string(address), file.asset);
      }
    });
  }
  address_count_ = entries.size();
  if (address_count_ == 0) return unavailable("no sanctioned addresses in " + address_directory);
  return crypto::sha256_hex(framed).substr(0, kVersionHexDigits);
}

std::optional<AddressHit> SanctionsLists::find_address(std::string_view address) const {
  const auto& index = is_evm_address(address) ? evm_addresses_ : exact_addresses_;
  const auto found =
      index.find(is_evm_address(address) ? lower_ascii(address) : std::string(address));
  if (found == index.end()) return std::nullopt;
  return AddressHit{found->second};
}

bool SanctionsLists::name_listed(std::string_view full_name) const {
  const auto keys = model::name_keys(full_name);
  if (keys.word_break.empty()) return false;
  return names_.contains(keys.word_break) || names_.contains(keys.drop);
}

std::optional<std::string> find_default_sanctions_directory() {
  if (const char* configured = std::getenv("PAYRAIL_SANCTIONS_DIR");
      configured != nullptr && *configured != '\0') {
    return std::string(configured);
  }
  const auto shipped = fs::path(model::source_directory()) / "data" / "sanctions";
  std::error_code error;
  if (fs::is_directory(shipped, error)) return shipped.lexically_normal().string();
  return std::nullopt;
}

std::string snapshot_directory(const std::string& root) {
  const auto current = fs::path(root) / kCurrentSnapshotLink;
  std::error_code error;
  if (fs::is_directory(current, error)) return current.string();
  return root;
}

// ---- SanctionsWatcher. ----

SanctionsWatcher::SanctionsWatcher(std::string directory) : directory_(std::move(directory)) {}

// Missing files are simply absent from the fingerprint, so losing one also counts as a change.
std::vector<SanctionsWatcher::FileStamp> SanctionsWatcher::fingerprint() const {
  std::vector<FileStamp> stamps;
  auto add = [&stamps](const fs::path& path, std::string name) {
    std::error_code error;
    const auto size = fs::file_size(path, error);
    if (error) return;
    const auto modified = fs::last_write_time(path, error);
    if (error) return;
    const auto nanoseconds =
        std::chrono::duration_cast<std::chrono::nanoseconds>(modified.time_since_epoch());
    stamps.push_back({std::move(name), size, nanoseconds.count()});
  };
  const fs::path root(snapshot_directory(directory_));
  // An installed snapshot is swapped by re-pointing `current`: the target is part of the stamp.
  std::error_code error;
  stamps.push_back({"target:" + fs::weakly_canonical(root, error).string(), 0, 0});
  add(root / kSdnFileName, std::string(kSdnFileName));
  auto files = list_address_files(root / kAddressFolderName);
  if (files) {
    for (auto& file : *files) add(file.path, std::string(kAddressFolderName) + "/" + file.name);
  }
  return stamps;
}

model::Result<bool> SanctionsWatcher::reload_if_changed(bool force) {
  std::lock_guard lock(reload_mutex_);
  // Taken before reading: a change made during the load shows up as a change next time.
  auto stamps = fingerprint();
  if (!force && loaded_fingerprint_ && *loaded_fingerprint_ == stamps) return false;
  auto loaded = SanctionsLists::load(snapshot_directory(directory_));
  if (!loaded) return std::move(loaded).error();
  loaded_fingerprint_ = std::move(stamps);
  const auto previous = current_.load();
  // A touched but unchanged set of files keeps the current object: same version, no swap.
  if (previous && previous->version() == (*loaded)->version()) return false;
  current_.store(std::move(*loaded));
  return true;
}

}  // namespace payrail::infra::sanctions
