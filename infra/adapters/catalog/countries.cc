#include "infra/adapters/catalog/countries.h"

#include <fstream>
#include <sstream>

#include "schemas/model/common/json.h"

namespace payrail::infra::catalog {

model::Result<std::shared_ptr<const Countries>> Countries::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "cannot read " + path + " (install the iso-codes package)");
  }
  std::stringstream content;
  content << file.rdbuf();
  auto document = model::json::parse_object(content.str(), 8);
  if (!document.ok()) return document.error();
  const auto* entries = model::json::member(*document, "3166-1");
  if (entries == nullptr || !entries->IsArray()) {
    return model::Error::make(model::ErrorCode::internal_error, path + " has no 3166-1 list");
  }
  auto countries = std::make_shared<Countries>();
  for (const auto& entry : entries->GetArray()) {
    const auto code = model::json::string_member(entry, "alpha_2");
    const auto name = model::json::string_member(entry, "name");
    if (code && name) countries->names_.emplace(std::string(*code), std::string(*name));
  }
  return std::shared_ptr<const Countries>(std::move(countries));
}

std::optional<std::string> Countries::name_of(std::string_view alpha_2) const {
  const auto it = names_.find(alpha_2);
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

}  // namespace payrail::infra::catalog
