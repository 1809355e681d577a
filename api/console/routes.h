// The web console's own routes under /console (docs/console.md): its files, the session it runs
// with, signing in and out, and the reads its pages need beyond the /v1 API (a resource's
// timeline and events, an event's deliveries). They pass the same pipeline as /v1 (api/pipeline.h)
// and are not part of the public API (no OpenAPI operations).
#pragma once

#include "api/router.h"

namespace payrail::api::console {

Router build_console_router();

// Whether `path` is the console's (/console or below): the pipeline matches it in that router.
bool is_console_path(std::string_view path);

}  // namespace payrail::api::console
