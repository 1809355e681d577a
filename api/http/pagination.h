// Parsing of list query parameters and rendering of the list envelope, shared by every list
// endpoint: {"object": "list", "data": [...], "has_more": bool, "next_cursor": id | null}.
#pragma once

#include <functional>
#include <initializer_list>
#include <string_view>

#include "api/context.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/json.h"

namespace payrail::api {

constexpr int kListLimitDefault = 25;
constexpr int kListLimitMax = 100;

struct ListOptions {
  infra::store::Listable listable;
  std::string_view id_prefix;                         // "po_"
  bool created_range = false;                         // accepts created_gte / created_lte
  std::initializer_list<std::string_view> filters{};  // other accepted parameters
};

// Refuses the first query parameter not in `accepted` (400 bad_request, param naming it): for
// endpoints that are not paginated lists.
model::Status reject_unknown_query(const HttpRequest& request,
                                   std::initializer_list<std::string_view> accepted);

// Validates limit, starting_after (format and existence), the created range and rejects unknown
// parameters, each with `param` naming the parameter.
model::Result<infra::store::ListQuery> parse_list_query(const RequestContext& context,
                                                        const ListOptions& options);

template <class Item>
using ItemWriter = std::function<void(model::json::Writer&, const Item&)>;

template <class Item>
HttpResponse list_response(const infra::store::Page<Item>& page, const ItemWriter<Item>& write_item,
                           const std::function<std::string(const Item&)>& id_of) {
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  writer.StartObject();
  model::json::write_key_string(writer, "object", "list");
  model::json::write_key(writer, "data");
  writer.StartArray();
  for (const auto& item : page.items) write_item(writer, item);
  writer.EndArray();
  model::json::write_key(writer, "has_more");
  writer.Bool(page.has_more);
  model::json::write_key_nullable(writer, "next_cursor",
                                  page.has_more && !page.items.empty()
                                      ? std::optional<std::string>(id_of(page.items.back()))
                                      : std::nullopt);
  writer.EndObject();
  return HttpResponse::json(200, buffer.GetString());
}

}  // namespace payrail::api
