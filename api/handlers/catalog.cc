// GET /v1/countries and GET /v1/payment-methods: the corridor table
// (schemas/model/fiat_payouts/corridors.h) as the API shows it, with country names from the
// system's ISO 3166 data (infra/adapters/catalog). Both are single-page lists in the list envelope; they
// read no database.
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/adapters/catalog/countries.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail::api {
namespace {

using model::json::write_key;
using model::json::write_key_string;

void write_strings(model::json::Writer& writer, std::string_view key,
                   const std::vector<std::string_view>& values) {
  write_key(writer, key);
  writer.StartArray();
  for (const auto value : values) model::json::write_string(writer, value);
  writer.EndArray();
}

model::Result<HttpResponse> list_countries(RequestContext& context) {
  if (auto status = reject_unknown_query(context.request, {}); !status.ok()) return status.error();
  struct Country {
    model::CountryMethods methods;
    std::string name;
  };
  std::vector<Country> countries;
  for (auto& methods : model::catalog_countries()) {
    auto name = context.services->countries->name_of(methods.country);
    // The ISO data installed with the system lacks a corridor country: a deployment defect.
    if (!name) return model::Error::make(model::ErrorCode::internal_error, "internal error");
    countries.push_back({std::move(methods), std::move(*name)});
  }
  const infra::store::Page<Country> page{std::move(countries), false};
  return list_response<Country>(
      page,
      [](model::json::Writer& writer, const Country& country) {
        writer.StartObject();
        write_key_string(writer, "object", "country");
        write_key_string(writer, "code", country.methods.country);
        write_key_string(writer, "name", country.name);
        write_strings(writer, "currencies", country.methods.currencies);
        write_strings(writer, "payout_methods", country.methods.payout_methods);
        write_strings(writer, "collection_methods", country.methods.collection_methods);
        writer.EndObject();
      },
      [](const Country& country) { return std::string(country.methods.country); });
}

void write_payment_method(model::json::Writer& writer, const model::PaymentMethod& method) {
  writer.StartObject();
  write_key_string(writer, "object", "payment_method");
  write_key_string(writer, "country", method.country);
  write_key_string(writer, "currency", method.currency);
  write_key_string(writer, "direction", model::direction_name(method.direction));
  write_key_string(writer, "type", method.type);
  write_key(writer, "required_fields");
  writer.StartArray();
  for (const auto& field : method.fields) {
    writer.StartObject();
    write_key_string(writer, "name", field.name);
    write_key_string(writer, "description", field.description);
    write_key_string(writer, "pattern", field.pattern);
    writer.EndObject();
  }
  writer.EndArray();
  if (method.direction == model::Direction::payout) {
    write_key(writer, "example_account");
    model::example_account(method).write_full(writer);
  }
  writer.EndObject();
}

struct MethodFilter {
  std::optional<std::string> country;
  std::optional<model::Direction> direction;
};

model::Result<MethodFilter> method_filter(const RequestContext& context) {
  const auto& request = context.request;
  if (auto status = reject_unknown_query(request, {"country", "direction"}); !status.ok()) {
    return status.error();
  }
  auto country = request.query_value("country");
  if (!country.ok()) return country.error();
  if (*country && !context.services->countries->name_of(**country)) {
    return model::bad_request("country must be an upper-case ISO 3166-1 alpha-2 code such as MX.",
                              "country");
  }
  auto direction = request.query_value("direction");
  if (!direction.ok()) return direction.error();
  MethodFilter filter{*country, std::nullopt};
  if (*direction) {
    filter.direction = model::parse_direction(**direction);
    if (!filter.direction) {
      return model::bad_request("direction must be payout or collection.", "direction");
    }
  }
  return filter;
}

model::Result<HttpResponse> list_payment_methods(RequestContext& context) {
  auto filter = method_filter(context);
  if (!filter.ok()) return filter.error();
  std::vector<const model::PaymentMethod*> methods;
  for (const auto& method : model::payment_methods()) {
    if (filter->country && method.country != *filter->country) continue;
    if (filter->direction && method.direction != *filter->direction) continue;
    methods.push_back(&method);
  }
  const infra::store::Page<const model::PaymentMethod*> page{std::move(methods), false};
  return list_response<const model::PaymentMethod*>(
      page,
      [](model::json::Writer& writer, const model::PaymentMethod* method) {
        write_payment_method(writer, *method);
      },
      [](const model::PaymentMethod* method) { return std::string(method->type); });
}

}  // namespace

void register_catalog_routes(Router& router) {
  router.add({"GET", "/v1/countries", Access::api_key, "organization:read", sync(list_countries)});
  router.add({"GET", "/v1/payment-methods", Access::api_key, "organization:read",
              sync(list_payment_methods)});
}

}  // namespace payrail::api
