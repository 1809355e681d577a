// The JSON body parser with its limits (depth 32, clean UTF-8, no NUL), the metadata rules, the
// KYB submission validator and the writers: whatever the bytes, a parsed body's strings are clean,
// every error names its field in clean text, and its canonical form is clean JSON that parses
// again. (Not the same canonical text: RapidJSON reads numbers as doubles
// without full precision; no amount is ever a JSON number.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "schemas/model/common/json.h"
#include "schemas/model/common/text.h"
#include "schemas/model/organizations/kyb.h"

using namespace payrail::model;

namespace {

// Error envelopes quote what the client sent: their text must be clean whatever came in.
void expect_clean_error(const Error& error) {
  if (!text::is_clean(error.message)) std::abort();
  if (error.param && !text::is_clean(*error.param)) std::abort();
}

// The same body as a KYB submission (POST /v1/kyb): every owner's numbers, dates and countries.
void validate_as_kyb(const rapidjson::Document& body) {
  const KybValidation validation{
      [](std::string_view code) { return code == "US" || code == "GB" || code == "MX"; },
      "2026-11-22"};
  const auto application = parse_kyb_application(body, validation);
  if (!application.ok()) expect_clean_error(application.error());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = json::parse_object(text);
  if (!parsed.ok()) {
    expect_clean_error(parsed.error());
    return 0;
  }
  if (const auto* metadata = json::member(*parsed, "metadata")) {
    if (auto status = json::check_metadata(*metadata); !status.ok()) {
      expect_clean_error(status.error());
    }
  }
  validate_as_kyb(*parsed);
  const auto canonical = json::canonical(*parsed);
  if (!text::is_clean(canonical)) std::abort();
  if (!json::parse_object(canonical).ok()) std::abort();
  return 0;
}
