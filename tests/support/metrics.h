// Reading a process's Prometheus text metrics in tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace payrail::testing {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

class Scrape {
 public:
  // GET <metrics_url>/metrics and parse every sample; throws if the answer is not 200.
  static Scrape from(const std::string& metrics_url);
  explicit Scrape(const std::string& text);

  // The sample with exactly these labels, if present.
  std::optional<double> value(const std::string& name,
                              const std::map<std::string, std::string>& labels = {}) const;
  // The sum over samples of `name` whose labels include `labels` (0 when none).
  double sum(const std::string& name, const std::map<std::string, std::string>& labels = {}) const;
  // The samples of `name` whose labels include `labels`.
  std::vector<Sample> samples(const std::string& name,
                              const std::map<std::string, std::string>& labels = {}) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<Sample> samples_;
};

}  // namespace payrail::testing
