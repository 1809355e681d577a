#include "tests/support/metrics.h"

#include <sstream>
#include <stdexcept>

#include "tests/support/http_client.h"

namespace payrail::testing {
namespace {

// name{a="x",b="y"} value   (label values never contain quotes in our metrics; they may contain
// braces and commas, as route patterns do)
Sample parse_line(const std::string& line) {
  Sample sample;
  const auto brace = line.find('{');
  const auto space = line.rfind(' ');
  if (brace != std::string::npos && brace < space) {
    sample.name = line.substr(0, brace);
    const auto close = line.rfind('}', space);
    const std::string inside = line.substr(brace + 1, close - brace - 1);
    std::size_t at = 0;
    while (at < inside.size()) {
      const auto equals = inside.find("=\"", at);
      const auto value_end = equals == std::string::npos ? equals : inside.find('"', equals + 2);
      if (value_end == std::string::npos) throw std::runtime_error("bad sample: " + line);
      sample.labels[inside.substr(at, equals - at)] =
          inside.substr(equals + 2, value_end - equals - 2);
      at = value_end + 2;  // past the quote and the comma
    }
  } else {
    sample.name = line.substr(0, space);
  }
  sample.value = std::stod(line.substr(space + 1));
  return sample;
}

bool includes(const std::map<std::string, std::string>& labels,
              const std::map<std::string, std::string>& wanted) {
  for (const auto& [name, value] : wanted) {
    const auto found = labels.find(name);
    if (found == labels.end() || found->second != value) return false;
  }
  return true;
}

}  // namespace

Scrape Scrape::from(const std::string& metrics_url) {
  const auto response = HttpClient(metrics_url).get("/metrics");
  if (response.status != 200) {
    throw std::runtime_error("scrape " + metrics_url + ": " + std::to_string(response.status));
  }
  return Scrape(response.body);
}

Scrape::Scrape(const std::string& text) : text_(text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    samples_.push_back(parse_line(line));
  }
}

std::optional<double> Scrape::value(const std::string& name,
                                    const std::map<std::string, std::string>& labels) const {
  for (const auto& sample : samples_) {
    if (sample.name == name && sample.labels == labels) return sample.value;
  }
  return std::nullopt;
}

double Scrape::sum(const std::string& name,
                   const std::map<std::string, std::string>& labels) const {
  double total = 0;
  for (const auto& sample : samples(name, labels)) total += sample.value;
  return total;
}

std::vector<Sample> Scrape::samples(const std::string& name,
                                    const std::map<std::string, std::string>& labels) const {
  std::vector<Sample> found;
  for (const auto& sample : samples_) {
    if (sample.name == name && includes(sample.labels, labels)) found.push_back(sample);
  }
  return found;
}

}  // namespace payrail::testing
