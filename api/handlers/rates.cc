// GET /v1/rates?from=&to=: the mid rate between two currencies or assets from the key's mode's
// rate source (infra/adapters/rates/rate_source.h). Checks run in the documented order: parameters
// (400 missing or unknown, 422 a code Payrail does not quote), then availability (503 in live mode
// without a configured source), then the source's answer.
#include "schemas/model/money/rates.h"
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/adapters/rates/rate_source.h"

namespace payrail::api {
namespace {

model::Result<std::string> required_code(const HttpRequest& request, const char* name) {
  auto value = request.query_value(name);
  if (!value.ok()) return value.error();
  if (!*value || (*value)->empty()) {
    return model::bad_request(std::string("The query parameter ") + name + " is required.", name);
  }
  if (!model::has_reference_rate(**value)) {
    return model::Error::make(model::ErrorCode::unsupported_country,
                              std::string(name) +
                                  " is not a currency or asset Payrail quotes (corridor currencies "
                                  "of GET /v1/countries, USDC, USDT, ETH).",
                              name);
  }
  return std::move(**value);
}

model::Result<HttpResponse> get_rate(RequestContext& context) {
  const auto& request = context.request;
  if (auto status = reject_unknown_query(request, {"from", "to"}); !status.ok()) {
    return status.error();
  }
  auto from = required_code(request, "from");
  if (!from.ok()) return from.error();
  auto to = required_code(request, "to");
  if (!to.ok()) return to.error();
  auto source = context.services->rates->for_mode(context.api_key->mode);
  if (!source.ok()) return source.error();
  auto rate = (*source)->rate(*from, *to);
  if (!rate.ok()) return rate.error();
  return json_object_response(200, [&](model::json::Writer& writer) {
    using model::json::write_key_string;
    writer.StartObject();
    write_key_string(writer, "object", "rate");
    write_key_string(writer, "from", rate->from);
    write_key_string(writer, "to", rate->to);
    write_key_string(writer, "rate", model::format_decimal(rate->rate));
    write_key_string(writer, "inverse", model::format_decimal(rate->inverse));
    write_key_string(writer, "as_of", rate->as_of);
    writer.EndObject();
  });
}

}  // namespace

void register_rate_routes(Router& router) {
  router.add({"GET", "/v1/rates", Access::api_key, "balances:read", sync(get_rate)});
}

}  // namespace payrail::api
