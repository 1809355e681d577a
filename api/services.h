// Long-lived collaborators shared by every request of the API process (owned by main.cc).
#pragma once

#include "infra/programs/config/config.h"

namespace payrail::infra::pg {
class Pool;
}  // namespace payrail::infra::pg
namespace payrail::infra::store {
class GroupedWrites;
}  // namespace payrail::infra::store
namespace payrail::infra::store::creates {
class Answers;
}  // namespace payrail::infra::store::creates
namespace payrail::infra::auth {
class JwtVerifier;
}
namespace payrail::infra::store::outbox {
class Relay;
}

namespace payrail::api {

class ApiKeyAuthenticator;
class RateLimiter;
class HealthProbe;
class Router;
}  // namespace payrail::api
namespace payrail::infra::catalog {
class Countries;
}
namespace payrail::infra::rates {
class RateSources;
}
namespace payrail::infra::collections {
class CollectionProviders;
}
namespace payrail::infra::chain {
struct EvmNetworks;
}
namespace payrail::api {
class PayoutDecisions;
class WorkerPool;
namespace console {
class OidcClient;
}

struct Services {
  infra::Config config;
  infra::pg::Pool* db = nullptr;
  const infra::auth::JwtVerifier* sessions = nullptr;
  ApiKeyAuthenticator* api_keys = nullptr;
  RateLimiter* rate_limiter = nullptr;
  HealthProbe* health = nullptr;
  infra::store::outbox::Relay* relay = nullptr;
  const infra::catalog::Countries* countries = nullptr;
  PayoutDecisions* payout_decisions = nullptr;
  const Router* router = nullptr;
  WorkerPool* workers = nullptr;  // for continuations (a payout create after its decision)
  const infra::rates::RateSources* rates = nullptr;  // exchange rates per mode
  const infra::collections::CollectionProviders* collection_providers = nullptr;
  // With PAYRAIL_CHAIN_ADAPTER=evm: the networks live payouts may use (null otherwise).
  const infra::chain::EvmNetworks* evm_networks = nullptr;
  infra::store::GroupedWrites* creates = nullptr;     // every create, grouped
  infra::store::creates::Answers* answers = nullptr;  // their answers, read and recorded in groups
  // The web console's routes (/console/...), and its OpenID Connect client (null: not configured).
  const Router* console_router = nullptr;
  console::OidcClient* console_sign_in = nullptr;
};

}  // namespace payrail::api
