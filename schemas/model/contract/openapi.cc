#include "schemas/model/contract/openapi.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "schemas/model/common/json.h"

namespace payrail::model {
namespace {

using Allocator = rapidjson::Document::AllocatorType;

Status merge(rapidjson::Value& into, const rapidjson::Value& from, Allocator& allocator,
             const std::string& path) {
  for (const auto& member : from.GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    const auto found = into.FindMember(member.name);
    if (found == into.MemberEnd()) {
      into.AddMember(rapidjson::Value(member.name, allocator),
                     rapidjson::Value(member.value, allocator), allocator);
    } else if (found->value.IsObject() && member.value.IsObject()) {
      if (auto merged = merge(found->value, member.value, allocator, path + "/" + name);
          !merged.ok()) {
        return merged;
      }
    } else if (found->value.IsArray() && member.value.IsArray()) {
      for (const auto& item : member.value.GetArray()) {
        found->value.PushBack(rapidjson::Value(item, allocator), allocator);
      }
    } else {
      return Error::make(ErrorCode::internal_error,
                         "OpenAPI: " + path + "/" + name + " is defined twice");
    }
  }
  return ok_status();
}

Result<rapidjson::Document> parse(const EmbeddedFile& file) {
  rapidjson::Document document;
  document.Parse(file.content.data(), file.content.size());
  if (document.HasParseError() || !document.IsObject()) {
    return Error::make(ErrorCode::internal_error,
                       "OpenAPI: " + std::string(file.name) + " is not a JSON object: " +
                           rapidjson::GetParseError_En(document.GetParseError()) + " at byte " +
                           std::to_string(document.GetErrorOffset()));
  }
  return document;
}

}  // namespace

Result<std::string> assemble_openapi(std::span<const EmbeddedFile> files) {
  if (files.empty()) return Error::make(ErrorCode::internal_error, "OpenAPI: no files");
  auto document = parse(files.front());
  if (!document.ok()) return document.error();
  for (const auto& file : files.subspan(1)) {
    auto fragment = parse(file);
    if (!fragment.ok()) return fragment.error();
    if (auto merged = merge(*document, *fragment, document->GetAllocator(),
                            "#" + std::string(file.name) + ":");
        !merged.ok()) {
      return merged.error();
    }
  }
  return json::serialize(*document);
}

}  // namespace payrail::model
