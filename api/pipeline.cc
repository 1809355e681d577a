#include "api/pipeline.h"

#include <strings.h>

#include <algorithm>
#include <cctype>

#include "api/console/routes.h"
#include "api/console/sessions.h"
#include "api/middleware/authentication.h"
#include "api/middleware/rate_limiter.h"
#include "api/router.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "schemas/model/common/text.h"

namespace payrail::api {
namespace {

using model::Error;
using model::ErrorCode;

std::string join(const std::vector<std::string>& values, std::string_view separator) {
  std::string joined;
  for (const auto& value : values) {
    if (!joined.empty()) joined += separator;
    joined += value;
  }
  return joined;
}

// Header names are case-insensitive and proxies lower-case them; `param` uses the documented
// spelling of the headers the API reads, Title-Case for any other.
std::string header_param(std::string_view name) {
  for (const std::string_view known :
       {"X-API-Key", "Authorization", "Content-Type", "Idempotency-Key", "Payrail-Organization",
        "Payrail-Mode", "X-CSRF-Token"}) {
    if (known.size() == name.size() && strncasecmp(known.data(), name.data(), name.size()) == 0) {
      return std::string(known);
    }
  }
  std::string spelled(name);
  bool word_start = true;
  for (char& c : spelled) {
    c = word_start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                   : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    word_start = c == '-';
  }
  return spelled;
}

// Every string a handler can read from the request line and headers is checked here once, so
// none can carry invalid UTF-8 or a NUL into a query, a log line or a response.
model::Status check_request_text(const HttpRequest& request,
                                 const std::map<std::string, std::string>& path_params) {
  using model::text::check_clean;
  for (const auto& [name, value] : path_params) {
    if (auto status = check_clean(value, name); !status.ok()) return status;
  }
  for (const auto& [name, value] : request.query) {
    if (auto status = check_clean(name, name); !status.ok()) return status;
    if (auto status = check_clean(value, name); !status.ok()) return status;
  }
  for (const auto& [name, value] : request.headers) {
    if (auto status = check_clean(value, header_param(name)); !status.ok()) return status;
  }
  // Fields read as one value: a repeated one could be read differently by a proxy in front.
  for (const std::string_view name : {"Content-Type", "Idempotency-Key", "Payrail-Organization"}) {
    if (request.header_repeated(name)) {
      return model::bad_request("The " + std::string(name) + " header must appear once.",
                                std::string(name));
    }
  }
  return model::ok_status();
}

model::Status check_content_type(const HttpRequest& request) {
  if (request.body.empty()) return model::ok_status();
  const auto content_type = request.header("Content-Type");
  if (content_type) {
    // Media types are case-insensitive and may have whitespace before parameters (RFC 9110 8.3).
    auto media_type = content_type->substr(0, content_type->find(';'));
    while (media_type.ends_with(' ') || media_type.ends_with('\t')) media_type.remove_suffix(1);
    constexpr std::string_view kJson = "application/json";
    if (media_type.size() == kJson.size() &&
        strncasecmp(media_type.data(), kJson.data(), kJson.size()) == 0) {
      return model::ok_status();
    }
  }
  return Error::make(ErrorCode::unsupported_media_type,
                     "Request bodies must be sent with Content-Type: application/json.");
}

model::Status authenticate(Services& services, const Route& route, RequestContext& context) {
  if (route.access == Access::open) return model::ok_status();
  auto credentials = read_credentials(context.request);
  if (!credentials.ok()) return credentials.error();
  const bool accepts_key = route.access != Access::session;
  const bool accepts_session = route.access != Access::api_key;
  // The web console's cookie counts only when no other credential is sent (api/console/sessions.h).
  if (!credentials->api_key && !credentials->session) {
    auto cookie = console::read_cookie(context.request, console::kSessionCookie);
    if (!cookie.ok()) return cookie.error();
    if (*cookie) return console::authenticate(services, route.access, **cookie, context);
  }
  if (credentials->api_key && accepts_key) {
    auto principal = services.api_keys->authenticate(*credentials->api_key);
    if (!principal.ok()) return principal.error();
    context.api_key = std::move(principal.value());
    return model::ok_status();
  }
  if (credentials->session && accepts_session) {
    auto principal = authenticate_session(*services.sessions, *credentials->session);
    if (!principal.ok()) return principal.error();
    context.session = std::move(principal.value());
    return model::ok_status();
  }
  if (credentials->api_key) {
    return Error::make(ErrorCode::session_required,
                       "This operation needs an identity-provider session, not an API key.");
  }
  if (credentials->session) {
    return Error::make(ErrorCode::api_key_invalid, "This operation needs an API key.");
  }
  if (!accepts_key) {
    return Error::make(ErrorCode::session_invalid,
                       "Send an identity-provider session as Authorization: Bearer <token>.");
  }
  return Error::make(ErrorCode::api_key_missing,
                     "Send an API key in the X-API-Key header or as Authorization: Bearer.");
}

model::Status apply_rate_limit(Services& services, const RequestContext& context,
                               Responder& responder) {
  std::string bucket;
  if (context.api_key) {
    bucket = context.api_key->org_id + "/" + std::string(model::mode_name(context.api_key->mode));
  } else if (context.session) {
    bucket = "session/" + context.session->subject;
  } else {
    return model::ok_status();
  }
  const auto taken = services.rate_limiter->take(bucket);
  if (!taken.ok()) return taken.error();
  const auto& decision = *taken;
  responder.add_header("RateLimit-Limit", std::to_string(decision.limit));
  responder.add_header("RateLimit-Remaining", std::to_string(decision.remaining));
  if (decision.allowed) return model::ok_status();
  auto error = Error::make(ErrorCode::rate_limited,
                           "Too many requests for this organization; retry after the delay.");
  error.headers["Retry-After"] = std::to_string(decision.retry_after_seconds);
  return error;
}

model::Status check_scope(const Route& route, const RequestContext& context) {
  if (route.scope.empty() || !context.api_key) return model::ok_status();
  const auto& scopes = context.api_key->scopes;
  if (std::find(scopes.begin(), scopes.end(), route.scope) != scopes.end()) {
    return model::ok_status();
  }
  return Error::make(ErrorCode::scope_insufficient,
                     "This API key lacks the scope " + route.scope + ".");
}

// A method from the closed set a label may carry.
std::string_view method_label(std::string_view method) {
  for (std::string_view known : {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}) {
    if (method == known) return known;
  }
  return "other";
}

// The same responder, counting its answer in payrail_http_requests_total and
// payrail_http_request_duration_seconds when it is sent (also when a handler answers later, from
// another thread, or the responder is dropped and answers 500).
Responder measured(Responder responder, const HttpRequest& request, std::string route) {
  auto inner = std::make_shared<Responder>(std::move(responder));
  auto request_id = inner->request_id();
  return Responder(std::move(request_id), [inner, method = method_label(request.method),
                                           route = std::move(route),
                                           received_at = request.received_at](HttpResponse answer) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - received_at;
    infra::metrics::record_http_request(method, route, answer.status, elapsed.count());
    inner->send(std::move(answer));
  });
}

}  // namespace

void handle_request(Services& services, HttpRequest request, Responder unmeasured) {
  const bool console_path =
      services.console_router != nullptr && console::is_console_path(request.path);
  auto match = (console_path ? services.console_router : services.router)
                   ->match(request.method, request.path);
  auto responder =
      measured(std::move(unmeasured), request, match.route ? match.route->pattern : "unmatched");
  if (match.route == nullptr) {
    if (match.allowed_methods.empty()) {
      responder.send_error(Error::make(ErrorCode::resource_missing,
                                       "No such endpoint: " + request.method + " " + request.path));
      return;
    }
    auto error = Error::make(ErrorCode::method_not_allowed,
                             request.method + " is not allowed on " + request.path + ".");
    error.headers["Allow"] = join(match.allowed_methods, ", ");
    responder.send_error(error);
    return;
  }
  const Route& route = *match.route;
  auto context = std::make_shared<RequestContext>();
  context->request = std::move(request);
  context->path_params = std::move(match.path_params);
  context->services = &services;
  if (auto status = check_request_text(context->request, context->path_params); !status.ok()) {
    return responder.send_error(status.error());
  }
  if (auto status = check_content_type(context->request); !status.ok()) {
    return responder.send_error(status.error());
  }
  if (auto status = authenticate(services, route, *context); !status.ok()) {
    return responder.send_error(status.error());
  }
  if (auto status = apply_rate_limit(services, *context, responder); !status.ok()) {
    return responder.send_error(status.error());
  }
  if (auto status = check_scope(route, *context); !status.ok()) {
    return responder.send_error(status.error());
  }
  route.handler(std::move(context), std::move(responder));
}

}  // namespace payrail::api
