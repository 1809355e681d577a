// The one normalization of person and entity names for screening. The OFAC SDN names, the
// internal blacklist's names and every beneficiary name are compared only through name_keys(),
// so what makes two names equal is decided here and nowhere else.
//
// A key is built with ICU (Unicode data, not hand-made tables), to a fixed point of:
//   1. NFKC: fullwidth letters, ligatures (U+FB06 -> "st"), superscripts, mathematical letters
//      become their plain forms.
//   2. Capitals of other scripts that imitate a Latin capital (Greek K, Cyrillic M) become that
//      capital, so that case folding cannot turn them into small letters that look like nothing
//      Latin (Greek kappa).
//   3. NFKC_Casefold (case, and removal of default-ignorable code points: soft hyphen,
//      zero-width joiners, word joiner, bidi marks, variation selectors), then NFD and removal
//      of combining marks (accents) and of control, format, private-use and unassigned code
//      points (DEL and C1 controls vanish; tab, newline and NEL stay white space).
//   4. ICU's Latin-ASCII transliteration for Latin letters without a decomposition
//      (ł -> l, æ -> ae, þ -> th, đ -> d) and typographic punctuation (curly quotes, dashes).
//   5. The confusable skeleton of Unicode TS #39 (uspoof_getSkeletonUnicodeString): mixed-script
//      look-alikes map to one prototype (Cyrillic а -> a, "0" -> "o", "1" and "|" -> "l",
//      and "m" -> "rn" on both sides), then step 3 again.
// Then words: apostrophes vanish, hyphens and periods are word breaks (Joiners::word_break) or
// vanish (Joiners::drop), any other punctuation, symbol or white space separates words, and the
// words are sorted and joined by one space. A key is for comparing only: "MADURO MOROS, Nicolas"
// is "moros nicolas rnaduro".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace payrail::model {

// Input beyond this many bytes is not read (names are at most 140 characters at the API and sdn.csv
// lines at most 4 KiB); a key is at most kNameKeyExpansionMax times the bytes read.
inline constexpr std::size_t kNameBytesMax = 4096;
inline constexpr std::size_t kNameKeyExpansionMax = 18;

enum class Joiners { word_break, drop };

// Both variants of one name's key, computed with one pass of the Unicode steps.
struct NameKeys {
  std::string word_break;  // "AL-QAIDA" -> "al qaida"
  std::string drop;        // "AL-QAIDA" -> "alqaida"
};

// `name`: UTF-8, or Windows-1252 (a superset of Latin-1) when it is not valid UTF-8. Idempotent:
// name_keys(k).word_break == k for k = name_keys(x).word_break, and likewise for drop.
NameKeys name_keys(std::string_view name);

// name_keys(name).word_break: the form the internal blacklist stores and looks up.
std::string normalize_name(std::string_view name);

// What keys depend on: this code's revision and the ICU (so Unicode data) version in use. A key
// stored under another version may differ from the key computed now (the blacklist re-keys its
// entries when it changes: infra/store/screening/blacklist.h).
const std::string& name_key_version();

// `bytes` as UTF-8: unchanged when valid UTF-8, otherwise decoded as Windows-1252.
std::string utf8_from_utf8_or_windows1252(std::string_view bytes);

}  // namespace payrail::model
