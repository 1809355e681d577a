#include "api/handlers/handlers.h"

namespace payrail::api {

void register_webhook_routes(Router&) {}

}  // namespace payrail::api
