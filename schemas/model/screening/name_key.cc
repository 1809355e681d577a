#include "schemas/model/screening/name_key.h"

#include <unicode/normalizer2.h>
#include <unicode/translit.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>
#include <unicode/uversion.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "schemas/model/common/text.h"

namespace payrail::model {
namespace {

// Raised whenever this file changes what a key is (the ICU version is added at run time).
constexpr std::string_view kKeyRevision = "names/2";
// The steps reach their fixed point in two rounds for every code point of ICU 72; more rounds
// are a guard for other ICU data.
constexpr int kRoundsMax = 4;

void require(UErrorCode status, const char* what) {
  if (U_FAILURE(status)) {
    throw std::runtime_error(std::string("ICU ") + what + ": " + u_errorName(status));
  }
}

// ICU's shared, immutable services: Normalizer2 instances and a USpoofChecker used only through
// const functions are safe from any thread.
struct Services {
  const icu::Normalizer2* nfkc = nullptr;
  const icu::Normalizer2* nfkc_casefold = nullptr;
  const icu::Normalizer2* nfd = nullptr;
  std::unique_ptr<USpoofChecker, decltype(&uspoof_close)> spoof{nullptr, &uspoof_close};
};

const Services& services() {
  static const Services loaded = [] {
    Services created;
    UErrorCode status = U_ZERO_ERROR;
    created.nfkc = icu::Normalizer2::getNFKCInstance(status);
    require(status, "NFKC");
    created.nfkc_casefold = icu::Normalizer2::getNFKCCasefoldInstance(status);
    require(status, "NFKC_Casefold");
    created.nfd = icu::Normalizer2::getNFDInstance(status);
    require(status, "NFD");
    created.spoof.reset(uspoof_open(&status));
    require(status, "spoof checker");
    return created;
  }();
  return loaded;
}

// A Transliterator is not safe to share between threads: one per thread, created on first use.
icu::Transliterator& latin_ascii() {
  thread_local const std::unique_ptr<icu::Transliterator> instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::Transliterator> created(
        icu::Transliterator::createInstance("Latin-ASCII", UTRANS_FORWARD, status));
    require(status, "Latin-ASCII transliterator");
    return created;
  }();
  return *instance;
}

icu::UnicodeString skeleton(const icu::UnicodeString& text) {
  icu::UnicodeString result;
  UErrorCode status = U_ZERO_ERROR;
  uspoof_getSkeletonUnicodeString(services().spoof.get(), 0, text, result, &status);
  require(status, "skeleton");
  return result;
}

icu::UnicodeString normalized(const icu::Normalizer2& form, const icu::UnicodeString& text) {
  UErrorCode status = U_ZERO_ERROR;
  auto result = form.normalize(text, status);
  require(status, "normalization");
  return result;
}

bool is_capital_latin(const icu::UnicodeString& text) {
  return text.length() == 1 && text[0] >= u'A' && text[0] <= u'Z';
}

// Step 2 (see the header): a non-ASCII character whose skeleton is one Latin capital becomes it.
icu::UnicodeString latin_capitals(const icu::UnicodeString& text) {
  icu::UnicodeString result;
  for (int32_t index = 0; index < text.length();) {
    const UChar32 code = text.char32At(index);
    index += U16_LENGTH(code);
    if (code < 0x80) {
      result.append(code);
      continue;
    }
    const auto prototype = skeleton(icu::UnicodeString(code));
    if (is_capital_latin(prototype)) {
      result.append(prototype);
    } else {
      result.append(code);
    }
  }
  return result;
}

// Neither letters nor separators: vanish wherever they are.
bool vanishes(UChar32 code) {
  switch (u_charType(code)) {
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_FORMAT_CHAR:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_SURROGATE:
      return true;
    case U_CONTROL_CHAR:
      return !u_isUWhiteSpace(code);  // tab, line breaks and NEL separate words
    default:
      return false;
  }
}

// Step 3: case folded, without default-ignorable code points, accents and controls.
icu::UnicodeString folded(const icu::UnicodeString& text) {
  const auto& unicode = services();
  const auto decomposed = normalized(*unicode.nfd, normalized(*unicode.nfkc_casefold, text));
  icu::UnicodeString kept;
  for (int32_t index = 0; index < decomposed.length();) {
    const UChar32 code = decomposed.char32At(index);
    index += U16_LENGTH(code);
    if (!vanishes(code)) kept.append(code);
  }
  return normalized(*unicode.nfkc_casefold, kept);
}

bool is_ascii(const icu::UnicodeString& text) {
  for (int32_t index = 0; index < text.length(); ++index) {
    if (text[index] >= 0x80) return false;
  }
  return true;
}

bool is_ascii(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

icu::UnicodeString one_round(const icu::UnicodeString& text) {
  auto latin = folded(latin_capitals(normalized(*services().nfkc, text)));
  if (!is_ascii(latin)) latin_ascii().transliterate(latin);  // ASCII is left as it is
  return folded(skeleton(latin));
}

// The fixed point of each ASCII character, computed with ICU once. On ASCII text every step acts
// character by character, so ASCII text (most names, and most names once folded) is looked up
// here instead.
struct AsciiFolds {
  std::array<std::string, 128> fold;
  bool usable = false;  // every fold is ASCII and itself a fixed point
};

const AsciiFolds& ascii_folds();

std::string ascii_folded(std::string_view ascii) {
  const auto& table = ascii_folds();
  std::string text;
  for (const char c : ascii) text += table.fold[static_cast<unsigned char>(c)];
  return text;
}

// `use_ascii_folds`: false only while the table itself is built.
icu::UnicodeString to_fixed_point(icu::UnicodeString text, bool use_ascii_folds = true) {
  for (int round = 0; round < kRoundsMax; ++round) {
    if (use_ascii_folds && ascii_folds().usable && is_ascii(text)) {
      std::string ascii;
      text.toUTF8String(ascii);
      return icu::UnicodeString::fromUTF8(ascii_folded(ascii));
    }
    auto next = one_round(text);
    if (next == text) break;
    text = std::move(next);
  }
  return text;
}

const AsciiFolds& ascii_folds() {
  static const AsciiFolds table = [] {
    AsciiFolds built;
    bool usable = true;
    for (UChar32 code = 0; code < 128; ++code) {
      const auto fixed = to_fixed_point(icu::UnicodeString(code), false);
      fixed.toUTF8String(built.fold[code]);
      usable = usable && is_ascii(fixed) && one_round(fixed) == fixed;
    }
    built.usable = usable;
    return built;
  }();
  return table;
}

// The first kNameBytesMax bytes, cut between characters when the text is UTF-8.
std::string_view bounded(std::string_view name) {
  if (name.size() <= kNameBytesMax) return name;
  std::size_t end = kNameBytesMax;
  if (model::text::is_valid_utf8(name)) {
    while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;
  }
  return name.substr(0, end);
}

icu::UnicodeString decoded(std::string_view bytes) {
  if (model::text::is_valid_utf8(bytes)) {
    return icu::UnicodeString::fromUTF8(icu::StringPiece(bytes.data(), bytes.size()));
  }
  return icu::UnicodeString(bytes.data(), static_cast<int32_t>(bytes.size()), "windows-1252");
}

// The text after the Unicode steps, as UTF-8.
std::string folded_text(std::string_view name) {
  if (ascii_folds().usable && is_ascii(name)) return ascii_folded(name);
  std::string text;
  to_fixed_point(decoded(name)).toUTF8String(text);
  return text;
}

// How a code point of the folded text takes part in words.
enum class Role { letter, drop, joiner, word_break };

Role ascii_role(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
    return Role::letter;
  }
  if (c == '\'' || c == '`') return Role::drop;
  if (c == '-' || c == '.') return Role::joiner;
  return Role::word_break;
}

Role role(UChar32 code) {
  if (code < 0x80) return ascii_role(static_cast<char>(code));
  if (vanishes(code)) return Role::drop;
  if (u_isUWhiteSpace(code)) return Role::word_break;
  switch (u_charType(code)) {
    case U_DASH_PUNCTUATION:
      return Role::joiner;
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_COMBINING_SPACING_MARK:
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
      return Role::letter;
    default:
      return Role::word_break;  // other punctuation, symbols, separators
  }
}

// Code point at `index` of valid UTF-8 (the folded text always is), advancing `index`.
UChar32 next_code_point(std::string_view text, std::size_t& index) {
  UChar32 code = 0;
  int32_t offset = static_cast<int32_t>(index);
  U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), offset, static_cast<int32_t>(text.size()),
          code);
  index = static_cast<std::size_t>(offset);
  return code;
}

std::string sorted_words(std::string_view text, Joiners joiners) {
  std::vector<std::string> words;
  std::string word;
  auto end_word = [&] {
    if (!word.empty()) words.push_back(std::exchange(word, {}));
  };
  for (std::size_t index = 0; index < text.size();) {
    const auto start = index;
    const auto code = next_code_point(text, index);
    auto part = role(code);
    if (part == Role::joiner) part = joiners == Joiners::drop ? Role::drop : Role::word_break;
    if (part == Role::letter) {
      word.append(text.substr(start, index - start));
    } else if (part == Role::word_break) {
      end_word();
    }
  }
  end_word();
  std::sort(words.begin(), words.end());
  std::string key;
  for (const auto& each : words) {
    if (!key.empty()) key += ' ';
    key += each;
  }
  return key;
}

// Removing apostrophes and joiners puts characters side by side that were not (Hangul jamo then
// compose): such a key goes through the steps again until it is their fixed point. ASCII keys
// always are one (the ASCII table is applied character by character).
std::string stable_key(std::string key, Joiners joiners) {
  for (int round = 0; round < kRoundsMax && !is_ascii(key); ++round) {
    auto again = sorted_words(folded_text(key), joiners);
    if (again == key) break;
    key = std::move(again);
  }
  return key;
}

}  // namespace

NameKeys name_keys(std::string_view name) {
  const auto text = folded_text(bounded(name));
  return {stable_key(sorted_words(text, Joiners::word_break), Joiners::word_break),
          stable_key(sorted_words(text, Joiners::drop), Joiners::drop)};
}

std::string normalize_name(std::string_view name) {
  const auto text = folded_text(bounded(name));
  return stable_key(sorted_words(text, Joiners::word_break), Joiners::word_break);
}

const std::string& name_key_version() {
  static const std::string version = [] {
    UVersionInfo icu{};
    u_getVersion(icu);
    char icu_text[U_MAX_VERSION_STRING_LENGTH] = {};
    u_versionToString(icu, icu_text);
    return std::string(kKeyRevision) + ";icu/" + icu_text;
  }();
  return version;
}

std::string utf8_from_utf8_or_windows1252(std::string_view bytes) {
  if (model::text::is_valid_utf8(bytes)) return std::string(bytes);
  std::string converted;
  icu::UnicodeString(bytes.data(), static_cast<int32_t>(bytes.size()), "windows-1252")
      .toUTF8String(converted);
  return converted;
}

}  // namespace payrail::model
