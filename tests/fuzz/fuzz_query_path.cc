// Query strings and path ids: percent-decoding, the query pairs, routing with {id} parameters,
// the clean-text check and the timestamp parser on every value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/http/framing.h"
#include "api/router.h"
#include "infra/plumbing/time/clock.h"
#include "schemas/model/common/text.h"

using namespace payrail;

namespace {

const api::Router& router() {
  static const api::Router table = [] {
    api::Router routes;
    for (const char* pattern : {"/v1/payouts", "/v1/payouts/{id}", "/v1/payouts/{id}/cancel",
                                "/v1/api-keys/{id}", "/v1/webhooks/{id}/deliveries"}) {
      routes.add({"GET", pattern, api::Access::api_key, "", nullptr});
    }
    return routes;
  }();
  return table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view target(reinterpret_cast<const char*>(data), size);
  const auto question = target.find('?');
  const auto path = target.substr(0, question);
  if (question != std::string_view::npos) {
    for (const auto& [name, value] : api::http::parse_query(target.substr(question + 1))) {
      if (name.size() > size || value.size() > size) std::abort();  // decoding only shrinks
      if (model::text::check_clean(value, name).ok()) (void)infra::time::parse_utc(value);
    }
  }
  const auto match = router().match("GET", path);
  for (const auto& [name, value] : match.path_params) {
    if (value.find('/') != std::string::npos) std::abort();
    (void)model::text::check_clean(value, name);
  }
  const auto decoded = api::http::percent_decoded(target);
  if (decoded.size() > target.size()) std::abort();
  if (!model::text::is_clean(model::text::sanitized(decoded))) std::abort();
  return 0;
}
