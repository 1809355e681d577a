// One file per resource; each registers its routes (method, path, access, scope, handler).
#pragma once

#include "api/router.h"

namespace payrail::api {

void register_health_routes(Router& router);
void register_organization_routes(Router& router);
void register_api_key_routes(Router& router);
void register_payout_routes(Router& router);
void register_fiat_payout_routes(Router& router);
void register_balance_routes(Router& router);
void register_webhook_routes(Router& router);
void register_event_routes(Router& router);
void register_kyb_routes(Router& router);
void register_catalog_routes(Router& router);
void register_rate_routes(Router& router);
void register_collection_routes(Router& router);
void register_balance_transaction_routes(Router& router);

inline Router build_router() {
  Router router;
  register_health_routes(router);
  register_organization_routes(router);
  register_api_key_routes(router);
  register_payout_routes(router);
  register_fiat_payout_routes(router);
  register_balance_routes(router);
  register_webhook_routes(router);
  register_event_routes(router);
  register_kyb_routes(router);
  register_catalog_routes(router);
  register_rate_routes(router);
  register_collection_routes(router);
  register_balance_transaction_routes(router);
  return router;
}

}  // namespace payrail::api
