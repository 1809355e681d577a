// The route table: every endpoint with its method, path, who may call it and the scope it needs
// (docs/api.md "Endpoints"). The OpenAPI document is checked
// against this table by the tests.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/context.h"
#include "api/http/message.h"

namespace payrail::api {

enum class Access {
  open,                // no credentials (health, OpenAPI)
  api_key,             // X-API-Key or Authorization: Bearer ck_...
  session,             // identity-provider session (JWT)
  api_key_or_session,  // either; the handler decides what a session may do
};

using Handler = std::function<void(ContextPtr, Responder)>;
using SyncHandler = std::function<model::Result<HttpResponse>(RequestContext&)>;

// Adapts a handler that answers before returning.
Handler sync(SyncHandler handler);

struct Route {
  std::string method;
  std::string pattern;  // "/v1/payouts/{id}/cancel"
  Access access;
  std::string scope;  // empty when no scope applies
  Handler handler;
};

struct RouteMatch {
  const Route* route = nullptr;
  std::map<std::string, std::string> path_params;
  std::vector<std::string> allowed_methods;  // when the path exists with other methods
};

class Router {
 public:
  void add(Route route);
  RouteMatch match(std::string_view method, std::string_view path) const;
  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

}  // namespace payrail::api
