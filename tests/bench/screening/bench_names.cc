// Screening's name normalization, measured (tests/bench/screening/run): the time per name over
// every SDN primary and alias name of an sdn.csv, over look-alike forms of those names, the time
// of a whole SanctionsLists::load and of name_listed(). `--dump` prints "name<TAB>key" per name
// instead, to compare keys (collisions) between two builds. Figures only, never assertions.
//
// Only public functions that exist before and after the ICU normalization are used, so the same
// file builds against either (normalize_name, SanctionsLists::load, name_listed).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "infra/adapters/sanctions/sanctions.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> sdn_names(const std::string& csv_path) {
  std::ifstream in(csv_path, std::ios::binary);
  static const std::regex kPrimary(R"re(^\d+,"([^"]*)")re");
  static const std::regex kAlias(R"re([afn]\.k\.a\. '([^']*)')re");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    std::smatch match;
    if (std::regex_search(line, match, kPrimary)) names.push_back(match[1]);
    for (std::sregex_iterator alias(line.begin(), line.end(), kAlias), end; alias != end; ++alias) {
      names.push_back((*alias)[1]);
    }
  }
  return names;
}

// The forms an evasion takes: a soft hyphen inside, fullwidth letters, a Cyrillic а for "a".
std::vector<std::string> look_alikes(const std::vector<std::string>& names) {
  std::vector<std::string> forms;
  for (const auto& name : names) {
    auto soft = name;
    soft.insert(soft.size() / 2, "\u00AD");
    forms.push_back(soft);
    std::string wide;
    for (const char c : name) {
      if (c >= 'A' && c <= 'Z') {
        const char32_t code = U'\uFF21' + (c - 'A');  // fullwidth A is U+FF21
        wide += static_cast<char>(0xE0 | (code >> 12));
        wide += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        wide += static_cast<char>(0x80 | (code & 0x3F));
      } else {
        wide += c;
      }
    }
    forms.push_back(wide);
    auto cyrillic = name;
    if (const auto a = cyrillic.find('A'); a != std::string::npos) cyrillic.replace(a, 1, "\u0410");
    forms.push_back(cyrillic);
  }
  return forms;
}

double microseconds_per_name(const std::vector<std::string>& names) {
  std::size_t total_bytes = 0;
  const auto started = Clock::now();
  for (const auto& name : names) total_bytes += payrail::model::normalize_name(name).size();
  const std::chrono::duration<double, std::micro> elapsed = Clock::now() - started;
  if (total_bytes == 0) std::printf("(no output)\n");
  return elapsed.count() / static_cast<double>(names.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <sanctions directory> [--dump]\n", argv[0]);
    return 2;
  }
  const std::string directory = argv[1];
  const auto names = sdn_names(directory + "/ofac-sdn.csv");
  if (argc > 2 && std::string(argv[2]) == "--dump") {
    for (const auto& name : names) {
      std::printf("%s\t%s\n", name.c_str(), payrail::model::normalize_name(name).c_str());
    }
    return 0;
  }
  (void)payrail::model::normalize_name("warm up");
  const auto forms = look_alikes(names);
  std::printf("names: %zu SDN primary and alias names, %zu look-alike forms\n", names.size(),
              forms.size());
  for (int round = 0; round < 3; ++round) {
    std::printf("round %d: normalize_name %.2f us/name (SDN names), %.2f us/name (look-alikes)\n",
                round + 1, microseconds_per_name(names), microseconds_per_name(forms));
  }
  const auto load_started = Clock::now();
  auto lists = payrail::infra::sanctions::SanctionsLists::load(directory);
  const std::chrono::duration<double, std::milli> load_ms = Clock::now() - load_started;
  if (!lists) {
    std::fprintf(stderr, "load failed: %s\n", lists.error().message.c_str());
    return 1;
  }
  std::printf("SanctionsLists::load: %.0f ms (%zu names)\n", load_ms.count(),
              (*lists)->name_count());
  std::size_t listed = 0;
  const auto match_started = Clock::now();
  for (const auto& form : forms) listed += (*lists)->name_listed(form) ? 1 : 0;
  const std::chrono::duration<double, std::micro> match_us = Clock::now() - match_started;
  std::printf("name_listed: %.2f us/name over the look-alikes, %zu of %zu listed\n",
              match_us.count() / static_cast<double>(forms.size()), listed, forms.size());
  return 0;
}
