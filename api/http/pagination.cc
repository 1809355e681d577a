#include "api/http/pagination.h"

#include <charconv>

#include "api/services.h"
#include "infra/plumbing/time/clock.h"

namespace payrail::api {
namespace {

using model::bad_request;

model::Status reject_unknown_parameters(const HttpRequest& request, const ListOptions& options) {
  for (const auto& [name, value] : request.query) {
    bool known = name == "limit" || name == "starting_after";
    known = known || (options.created_range && (name == "created_gte" || name == "created_lte"));
    for (const auto filter : options.filters) known = known || name == filter;
    if (!known) return bad_request("Unknown query parameter: " + name + ".", name);
  }
  return model::ok_status();
}

}  // namespace

model::Status reject_unknown_query(const HttpRequest& request,
                                   std::initializer_list<std::string_view> accepted) {
  for (const auto& [name, value] : request.query) {
    bool known = false;
    for (const auto parameter : accepted) known = known || name == parameter;
    if (!known) return bad_request("Unknown query parameter: " + name + ".", name);
  }
  return model::ok_status();
}

namespace {

model::Result<int> parse_limit(const std::optional<std::string>& text) {
  if (!text) return kListLimitDefault;
  int limit = 0;
  const auto* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, limit);
  if (ec != std::errc() || ptr != end || limit < 1 || limit > kListLimitMax || text->empty() ||
      (*text)[0] == '0') {
    return bad_request("limit must be an integer from 1 to 100.", "limit");
  }
  return limit;
}

model::Result<std::optional<std::string>> parse_timestamp(const HttpRequest& request,
                                                          const char* name) {
  auto value = request.query_value(name);
  if (!value.ok() || !*value) return value;
  if (!infra::time::parse_utc(**value)) {
    return bad_request(std::string(name) +
                           " must be an ISO 8601 UTC timestamp such as "
                           "2026-11-21T00:00:00Z, from 1970 to 9999.",
                       name);
  }
  return value;
}

}  // namespace

model::Result<infra::store::ListQuery> parse_list_query(const RequestContext& context,
                                                        const ListOptions& options) {
  const auto& request = context.request;
  if (auto status = reject_unknown_parameters(request, options); !status.ok()) {
    return status.error();
  }
  infra::store::ListQuery query;
  auto limit_text = request.query_value("limit");
  if (!limit_text.ok()) return limit_text.error();
  auto limit = parse_limit(*limit_text);
  if (!limit.ok()) return limit.error();
  query.limit = *limit;
  auto cursor = request.query_value("starting_after");
  if (!cursor.ok()) return cursor.error();
  if (*cursor) {
    const auto& id = **cursor;
    const auto& principal = *context.api_key;
    auto exists = id.starts_with(options.id_prefix) && id.size() <= 64
                      ? infra::store::cursor_exists(*context.services->db, options.listable,
                                                    principal.org_id, principal.mode, id)
                      : model::Result<bool>(false);
    if (!exists.ok()) return exists.error();
    if (!*exists) {
      return bad_request("starting_after does not name an item of this list.", "starting_after");
    }
    query.starting_after = id;
  }
  if (options.created_range) {
    auto gte = parse_timestamp(request, "created_gte");
    if (!gte.ok()) return gte.error();
    auto lte = parse_timestamp(request, "created_lte");
    if (!lte.ok()) return lte.error();
    query.created_gte = *gte;
    query.created_lte = *lte;
  }
  return query;
}

}  // namespace payrail::api
