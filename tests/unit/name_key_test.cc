// Screening names through their one normalization (schemas/model/screening/name_key.h): invisible,
// compatibility and look-alike characters of every category, against the real OFAC SDN list
// (data/sanctions) and against the internal blacklist as a screening worker keeps it. Names
// listed on the SDN list are read from the data, except the one issue 38 names.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/store/screening/blacklist.h"
#include "schemas/model/screening/name_key.h"

namespace payrail::infra::sanctions {
namespace {

// The one name normalization is the model's (schemas/model/screening/name_key.h).
using model::kNameBytesMax;
using model::kNameKeyExpansionMax;
using model::name_key_version;
using model::name_keys;
using model::normalize_name;

// "MADURO MOROS, Nicolas" (an individual on the shipped list), as issue 38 wrote it.
constexpr std::string_view kMaduro = "Nicolas Maduro Moros";

std::shared_ptr<const SanctionsLists> real_lists() {
  static const auto lists = []() -> std::shared_ptr<const SanctionsLists> {
    auto loaded = SanctionsLists::load(find_default_sanctions_directory().value_or(""));
    return loaded.ok() ? *loaded : nullptr;
  }();
  return lists;
}

#define REQUIRE_LISTS(lists)       \
  const auto lists = real_lists(); \
  ASSERT_NE(lists, nullptr) << "the checkout ships data/sanctions"

// The primary name ("LAST, First") of the first individual on the list whose name contains
// `letters` (capitals), to put a ligature or superscript in place of them.
std::string listed_individual_with(const std::string& letters) {
  static const std::regex kIndividual(R"re(^\d+,"([A-Z ]+, [A-Za-z ]+)","individual")re");
  std::ifstream csv(*find_default_sanctions_directory() + "/ofac-sdn.csv");
  for (std::string line; std::getline(csv, line);) {
    std::smatch match;
    if (std::regex_search(line, match, kIndividual) &&
        match[1].str().find(letters) != std::string::npos) {
      return match[1];
    }
  }
  return "";
}

std::string replaced_once(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// What a screening worker holds of the blacklist (blacklist::Cache), with these names on it,
// stored as `payrail blacklist-add --name` stores them.
store::blacklist::Entries blacklist_of(const std::vector<std::string>& names) {
  store::blacklist::Entries entries;
  for (const auto& name : names) entries.entries.emplace("name", normalize_name(name));
  return entries;
}

bool blacklisted(const store::blacklist::Entries& entries, std::string_view name) {
  return entries.contains("name", normalize_name(name));
}

// Each form of "Nicolas Maduro Moros" with the character categories issue 38 lists, and more.
struct Form {
  std::string category;
  std::string name;
};

std::vector<Form> maduro_forms() {
  return {
      {"soft hyphen (issue)", "Nicolas Ma\u00ADduro Moros"},
      {"soft hyphens everywhere", "N\u00ADi\u00ADc\u00ADolas Maduro Mo\u00ADros\u00AD"},
      {"fullwidth (issue)",
       "\uFF2E\uFF49\uFF43\uFF4F\uFF4C\uFF41\uFF53 \uFF2D\uFF41\uFF44\uFF55\uFF52\uFF4F "
       "\uFF2D\uFF4F\uFF52\uFF4F\uFF53"},
      {"fullwidth space", "Nicolas\u3000Maduro\u3000Moros"},
      {"DEL inside a word (issue)",
       "Nicolas Ma\x7F"
       "duro Moros"},
      {"C1 controls inside a word", "Nicolas Ma\u0080du\u009Bro Mo\u0090ros"},
      {"C0 control inside a word", "Nicolas Mad\x01uro Moros"},
      {"Cyrillic a (issue)", "Nicolas M\u0430duro Moros"},
      {"Cyrillic c and o", "Ni\u0441\u043Elas Maduro M\u043Eros"},
      {"Cyrillic capitals", "NICOLAS \u041C\u0410DUR\u041E \u041C\u041EROS"},
      {"Greek capitals", "\u039D\u0399COLAS \u039C\u0391DURO \u039C\u039FROS"},
      {"Greek small omicron", "Nic\u03BFlas Maduro Moros"},
      {"zero-width joiner", "Nico\u200Dlas Maduro Moros"},
      {"zero-width non-joiner", "Nicolas Madu\u200Cro Moros"},
      {"zero-width space", "Nicolas Mad\u200Buro Moros"},
      {"word joiner U+2060", "Nicolas Ma\u2060duro Mo\u2060ros"},
      {"byte order mark inside", "Nicolas Madu\uFEFFro Moros"},
      {"left-to-right mark U+200E", "\u200ENicolas Maduro\u200E Moros"},
      {"right-to-left override U+202E", "Nicolas \u202EMaduro\u202C Moros"},
      {"bidi isolates", "Nicolas \u2066Maduro\u2069 Moros"},
      {"variation selector", "Nicolas Maduro\uFE0F Mo\uFE00ros"},
      {"supplementary variation selector", "Nicolas Mad\U000E0100uro Moros"},
      {"combining grapheme joiner", "Nicolas Mad\u034Furo Moros"},
      {"Mongolian vowel separator", "Nicolas Madu\u180Ero Moros"},
      {"tag characters", "Nicolas Maduro Moros\U000E0041\U000E007F"},
      {"mathematical bold",
       "\U0001D40D\U0001D422\U0001D41C\U0001D428\U0001D425\U0001D41A\U0001D42C "
       "Maduro Moros"},
      {"mathematical italic",
       "Nicolas \U0001D440\U0001D44E\U0001D451\U0001D462\U0001D45F\U0001D45C "
       "Moros"},
      {"mathematical double-struck",
       "Nicolas Maduro \U0001D544\U0001D560\U0001D563\U0001D560"
       "\U0001D564"},
      {"superscript letters", "Nicolas Maduro Moro\u02E2"},
      {"circled letters", "Nicolas \u24C2aduro Moros"},
      {"combining accents, NFD", "Nicola\u0301s Madu\u0301ro Mo\u0308ros"},
      {"precomposed accents", "Nicol\u00E1s Mad\u00FAr\u00F3 M\u00F6ros"},
      {"digit one for l", "Nico1as Maduro Moros"},
      {"digit zero for o", "Nicolas Madur0 M0ros"},
      {"vertical bar for l", "Nico|as Maduro Moros"},
      {"rn for m", "Nicolas rnaduro Moros"},
      {"no-break spaces", "Nicolas\u00A0Maduro\u202FMoros"},
      {"tab and line breaks", "\tNicolas\r\nMaduro Moros "},
      {"other order and case", "MADURO MOROS, nicolas"},
  };
}

TEST(NameKeyTest, EveryFormOfAListedNameHasItsKey) {
  const auto plain = name_keys(kMaduro);
  ASSERT_FALSE(plain.word_break.empty());
  for (const auto& form : maduro_forms()) {
    const auto keys = name_keys(form.name);
    EXPECT_EQ(keys.word_break, plain.word_break) << form.category;
    EXPECT_EQ(keys.drop, plain.drop) << form.category;
  }
}

TEST(NameKeyTest, EveryFormIsOnTheSdnList) {
  REQUIRE_LISTS(lists);
  ASSERT_TRUE(lists->name_listed(kMaduro));
  for (const auto& form : maduro_forms()) {
    EXPECT_TRUE(lists->name_listed(form.name)) << form.category;
  }
  EXPECT_FALSE(lists->name_listed("Nicolas Madero Moros"));  // another name stays another name
  EXPECT_FALSE(lists->name_listed("Nicolas Maduro"));
}

TEST(NameKeyTest, EveryFormIsOnTheBlacklist) {
  const auto entries = blacklist_of({"LOPEZ PAYRAILTEST, Ximena"});
  const std::vector<std::string> forms = {
      "Ximena Lopez Payrailtest",
      "Ximena L\u00F3pez Payrailtest",
      "Xi\u00ADmena Lopez Payrailtest",
      "\uFF38\uFF49\uFF4D\uFF45\uFF4E\uFF41 Lopez Payrailtest",
      "Ximena Lo\x7Fpez Payrailtest",
      "Ximena Lo\u0086pez Payrailtest",      // a C1 control
      "Xim\u0435na L\u043Epez Payrailtest",  // Cyrillic e and o
      "XIMENA L\u039FPEZ PAYRAILTEST",       // Greek capital omicron
      "Ximena Lopez Payrailte\uFB06",        // ligature st
      "Ximena Lopez Payrail\u200Dtest",
      "Ximena \u202ELopez\u202C Payrailtest",
      "Ximena Lopez\uFE0F Payrailtest",
      "\U0001D417imena Lopez Payrailtest",  // mathematical bold X
      "Ximena Lope\u1DBB Payrailtest",      // superscript z
      "Xi\u0301mena Lopez Payrailtest",
      "Xirnena Lopez Payrailtest",
  };
  for (const auto& form : forms) EXPECT_TRUE(blacklisted(entries, form)) << form;
  EXPECT_FALSE(blacklisted(entries, "Ximena Lopes Payrailtest"));
  EXPECT_FALSE(blacklisted(entries, "Ximena Payrailtest"));
}

TEST(NameKeyTest, LigaturesFoldOnBothLists) {
  REQUIRE_LISTS(lists);
  const std::vector<std::pair<std::string, std::string>> ligatures = {
      {"ST", "\uFB06"}, {"ST", "\uFB05"}, {"FI", "\uFB01"}, {"FL", "\uFB02"}, {"FF", "\uFB00"}};
  for (const auto& [letters, ligature] : ligatures) {
    const auto listed = listed_individual_with(letters);
    ASSERT_FALSE(listed.empty()) << "no listed individual with " << letters;
    ASSERT_TRUE(lists->name_listed(listed)) << listed;
    const auto form = replaced_once(listed, letters, ligature);
    EXPECT_TRUE(lists->name_listed(form)) << form;
    EXPECT_TRUE(blacklisted(blacklist_of({listed}), form)) << form;
  }
}

TEST(NameKeyTest, SuperscriptDigitsAndLettersFold) {
  EXPECT_EQ(normalize_name("Cimex\u00B2"), normalize_name("cimex2"));
  EXPECT_EQ(normalize_name("\u1D39\u1D43\u1D48\u1D58\u02B3\u1D52"), normalize_name("maduro"));
  EXPECT_EQ(normalize_name("Madur\u2092"), normalize_name("maduro"));  // subscript o
}

// Names written wholly in another script are other names: only look-alikes are folded.
TEST(NameKeyTest, OtherScriptsKeepTheirLetters) {
  EXPECT_EQ(normalize_name("\u0418\u0412\u0410\u041D\u041E\u0412, \u0418\u0432\u0430\u043D"),
            normalize_name("\u0438\u0432\u0430\u043D \u0438\u0432\u0430\u043D\u043E\u0432"));
  EXPECT_NE(normalize_name("\u0438\u0432\u0430\u043D \u0438\u0432\u0430\u043D\u043E\u0432"),
            normalize_name("ivan ivanov"));
  EXPECT_NE(normalize_name("\u5F20\u4F1F"), normalize_name("\u5F20\u4F1E"));
  EXPECT_FALSE(normalize_name("\u5F20\u4F1F").empty());
}

// The price of the skeleton, on both sides alike: "rn" and "m" are one key, as "1", "l" and
// "|" are. Among 8,421 common English first names, 9 pairs share a key this way (Amy and Arny,
// Ema and Erna); no two SDN names do (docs/fiat-payouts.md).
TEST(NameKeyTest, SkeletonMergesRnAndM) {
  EXPECT_EQ(normalize_name("Amy"), normalize_name("Arny"));
  EXPECT_EQ(normalize_name("Nicolas"), normalize_name("Nico1as"));
  EXPECT_NE(normalize_name("Mara"), normalize_name("Maria"));
}

TEST(NameKeyTest, KeysAreFixedPoints) {
  std::vector<std::string> names = {
      std::string(kMaduro),
      "AL-QAIDA",
      "O'Neill, Ann",
      "\u0418\u0412\u0410\u041D\u041E\u0412, \u0418\u0432\u0430\u043D",
      "\u039A\u03B1\u03C1\u03AF\u03BC",
      "\u1100'\u1161",
      "x\u0345\u0345y",
      "\uFDFA",
      "\u2126\u212A\u212B"};
  for (const auto& form : maduro_forms()) names.push_back(form.name);
  for (const auto& name : names) {
    const auto keys = name_keys(name);
    EXPECT_EQ(name_keys(keys.word_break).word_break, keys.word_break) << name;
    EXPECT_EQ(name_keys(keys.drop).drop, keys.drop) << name;
  }
}

// ASCII text takes a table computed from ICU; the same text through ICU (a zero-width joiner
// makes it non-ASCII, and vanishes) gives the same key.
TEST(NameKeyTest, AsciiTableAgreesWithIcu) {
  for (int first = 0; first < 128; ++first) {
    for (int second = 0; second < 128; second += 7) {
      const std::string ascii = {'a', static_cast<char>(first), static_cast<char>(second), 'z'};
      EXPECT_EQ(normalize_name(ascii), normalize_name(ascii + "\u200D")) << first << " " << second;
    }
  }
}

TEST(NameKeyTest, InputIsBoundedAndOutputValidUtf8) {
  const std::string long_name(3 * kNameBytesMax, 'a');
  EXPECT_EQ(normalize_name(long_name), std::string(kNameBytesMax, 'a'));
  // A cut inside a UTF-8 sequence steps back to the character's start.
  const std::string accented = std::string(kNameBytesMax - 1, 'a') + "\u00E9\u00E9";
  EXPECT_EQ(normalize_name(accented), std::string(kNameBytesMax - 1, 'a'));
  const std::string expanding(kNameBytesMax, '\xEF');  // not UTF-8: Windows-1252 "ï"
  EXPECT_LE(normalize_name(expanding).size(), kNameKeyExpansionMax * kNameBytesMax);
}

TEST(NameKeyTest, VersionNamesTheIcuInUse) {
  EXPECT_TRUE(std::regex_match(name_key_version(), std::regex(R"(names/\d+;icu/[0-9.]+)")))
      << name_key_version();
}

}  // namespace
}  // namespace payrail::infra::sanctions
