#include "api/router.h"

namespace payrail::api {
namespace {

constexpr std::size_t kPathSegmentsMax = 16;

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  if (path.empty() || path.front() != '/') return segments;
  path.remove_prefix(1);
  while (segments.size() <= kPathSegmentsMax) {
    const auto slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool match_pattern(std::string_view pattern, std::string_view path,
                   std::map<std::string, std::string>& params) {
  const auto expected = split_path(pattern);
  const auto actual = split_path(path);
  if (expected.size() != actual.size()) return false;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto segment = expected[i];
    if (segment.size() > 2 && segment.front() == '{' && segment.back() == '}') {
      if (actual[i].empty()) return false;
      params[std::string(segment.substr(1, segment.size() - 2))] = std::string(actual[i]);
    } else if (segment != actual[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

Handler sync(SyncHandler handler) {
  return [handler = std::move(handler)](ContextPtr context, Responder responder) {
    auto result = handler(*context);
    if (result.ok()) {
      responder.send(std::move(result.value()));
    } else {
      responder.send_error(result.error());
    }
  };
}

void Router::add(Route route) {
  routes_.push_back(std::move(route));
}

RouteMatch Router::match(std::string_view method, std::string_view path) const {
  RouteMatch found;
  for (const auto& route : routes_) {
    std::map<std::string, std::string> params;
    if (!match_pattern(route.pattern, path, params)) continue;
    if (route.method == method) {
      found.route = &route;
      found.path_params = std::move(params);
      return found;
    }
    found.allowed_methods.push_back(route.method);
  }
  return found;
}

}  // namespace payrail::api
