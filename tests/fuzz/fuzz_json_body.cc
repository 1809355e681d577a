// The JSON body parser with its limits (depth 32, clean UTF-8, no NUL), the metadata rules and
// the writers: whatever the bytes, a parsed body's strings are clean and its canonical form is
// clean JSON that parses again. (Not the same canonical text: RapidJSON reads numbers as doubles
// without full precision; no amount is ever a JSON number.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "schemas/model/json.h"
#include "schemas/model/text.h"

using namespace payrail::model;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = json::parse_object(text);
  if (!parsed.ok()) {
    if (!text::is_clean(parsed.error().message)) std::abort();  // the envelope quotes these
    if (parsed.error().param && !text::is_clean(*parsed.error().param)) std::abort();
    return 0;
  }
  if (const auto* metadata = json::member(*parsed, "metadata"))
    (void)json::check_metadata(*metadata);
  const auto canonical = json::canonical(*parsed);
  if (!text::is_clean(canonical)) std::abort();
  if (!json::parse_object(canonical).ok()) std::abort();
  return 0;
}
