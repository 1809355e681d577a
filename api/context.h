// What a handler sees: the request, its path parameters, who is calling, and the services.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/http/message.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/organizations/organization_lifecycle.h"

namespace payrail::api {

struct Services;

// An API key that authenticated: one organization, one mode, a set of scopes.
struct ApiKeyPrincipal {
  std::string key_id;
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::vector<std::string> scopes;
  model::KybStatus kyb_status = model::KybStatus::unverified;  // read on every request
};

// An identity-provider session (a member of zero or more organizations).
struct SessionPrincipal {
  std::string subject;
  std::string email;
};

struct RequestContext {
  HttpRequest request;
  std::map<std::string, std::string> path_params;
  std::optional<ApiKeyPrincipal> api_key;
  std::optional<SessionPrincipal> session;
  Services* services = nullptr;

  const std::string& path_param(const std::string& name) const { return path_params.at(name); }
};

using ContextPtr = std::shared_ptr<RequestContext>;

}  // namespace payrail::api
