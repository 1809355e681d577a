#include "api/handlers/handlers.h"

namespace payrail::api {

void register_event_routes(Router&) {}

}  // namespace payrail::api
