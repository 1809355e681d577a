// Screening's one name normalization (schemas/model/screening/name_key.h) and the SDN name match,
// on arbitrary bytes (UTF-8 or not): never crashes; every key is valid UTF-8, bounded, and its own
// key (idempotent); ASCII text, which takes a table, keys as the same text through ICU does; and a
// name is listed exactly when one of its keys is (the shipped data/sanctions, loaded once).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "infra/adapters/sanctions/sanctions.h"
#include "schemas/model/common/text.h"
#include "schemas/model/screening/name_key.h"

using namespace payrail::model;
using namespace payrail::infra::sanctions;

namespace {

std::shared_ptr<const SanctionsLists> lists;

void require(bool holds, const char* property, std::string_view input) {
  if (holds) return;
  std::fprintf(stderr, "property failed: %s (input of %zu bytes)\n", property, input.size());
  std::abort();
}

bool is_ascii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// Random bytes are rarely UTF-8 beyond ASCII: a first byte with its low bit set reads the rest
// as code points instead (3 bytes each, folded into U+0000..U+10FFFF without surrogates).
std::string as_code_points(const std::uint8_t* data, std::size_t size) {
  std::string text;
  for (std::size_t at = 0; at + 3 <= size; at += 3) {
    auto code = ((data[at] << 16) | (data[at + 1] << 8) | data[at + 2]) % 0x110000u;
    if (code >= 0xD800 && code <= 0xDFFF) code -= 0x800;
    if (code < 0x80) {
      text += static_cast<char>(code);
    } else if (code < 0x800) {
      text += static_cast<char>(0xC0 | (code >> 6));
      text += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      text += static_cast<char>(0xE0 | (code >> 12));
      text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      text += static_cast<char>(0xF0 | (code >> 18));
      text += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      text += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto loaded = SanctionsLists::load(find_default_sanctions_directory().value_or(""));
  if (!loaded.ok()) {
    std::fprintf(stderr, "sanctions data: %s\n", loaded.error().message.c_str());
    std::abort();
  }
  lists = *loaded;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = size > 0 && (data[0] & 1) != 0
                                ? as_code_points(data + 1, size - 1)
                                : std::string(reinterpret_cast<const char*>(data), size);
  const std::string_view name = input;
  const auto keys = name_keys(name);
  const auto bound = kNameKeyExpansionMax * std::min(name.size(), kNameBytesMax);
  for (const auto& key : {keys.word_break, keys.drop}) {
    require(payrail::model::text::is_valid_utf8(key), "key is valid UTF-8", name);
    require(key.size() <= bound, "key is bounded", name);
  }
  require(normalize_name(name) == keys.word_break, "normalize_name is the word_break key", name);
  require(name_keys(keys.word_break).word_break == keys.word_break, "idempotent (word_break)",
          name);
  require(name_keys(keys.drop).drop == keys.drop, "idempotent (drop)", name);
  if (is_ascii(name) && name.size() < kNameBytesMax) {
    // A zero-width joiner vanishes, and makes the text take the ICU path.
    require(normalize_name(std::string(name) + "\u200D") == keys.word_break,
            "ASCII table agrees with ICU", name);
  }
  const bool listed = lists->name_listed(name);
  require(listed == (lists->name_listed(keys.word_break) || lists->name_listed(keys.drop)),
          "listed exactly when a key is", name);
  return 0;
}
