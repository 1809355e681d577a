// ISO 3166-1 countries from the system's iso-codes package (never a hand-typed table).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "schemas/model/common/result.h"

namespace payrail::infra::catalog {

inline constexpr const char* kIsoCodesCountriesPath = "/usr/share/iso-codes/json/iso_3166-1.json";

class Countries {
 public:
  static model::Result<std::shared_ptr<const Countries>> load(
      const std::string& path = kIsoCodesCountriesPath);
  // The country's name for an upper-case alpha-2 code, or nullopt.
  std::optional<std::string> name_of(std::string_view alpha_2) const;
  std::size_t size() const { return names_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> names_;
};

}  // namespace payrail::infra::catalog
