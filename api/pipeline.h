// Every request passes the same steps in the same order, so a retry always gets the same answer:
// route (404/405) -> content type (415) -> authentication (401/403) -> rate limit (429) ->
// scope (403) -> handler. Paths under /console are matched in the web console's router; its
// session cookie authenticates like any credential (api/console/sessions.h).
#pragma once

#include "api/http/message.h"
#include "api/services.h"

namespace payrail::api {

void handle_request(Services& services, HttpRequest request, Responder responder);

}  // namespace payrail::api
