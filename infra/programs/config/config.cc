#include "infra/programs/config/config.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "infra/adapters/chain/evm_networks.h"
#include "infra/adapters/collections/provider.h"
#include "infra/adapters/partners/payout_partner.h"
#include "infra/adapters/rates/rate_source.h"

namespace payrail::infra {
namespace {

using model::Error;
using model::ErrorCode;

bool is_loopback_address(const std::string& address) {
  return address == "localhost" || address == "::1" || address.starts_with("127.");
}

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

Error config_error(std::string_view name, std::string_view problem) {
  return Error::make(ErrorCode::internal_error, std::string(name) + ": " + std::string(problem));
}

model::Status read_int(const char* name, int minimum, int maximum, int& target) {
  auto text = env(name);
  if (!text) return model::ok_status();
  int value = 0;
  const auto* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || value < minimum || value > maximum) {
    return config_error(name, "expected an integer between " + std::to_string(minimum) + " and " +
                                  std::to_string(maximum));
  }
  target = value;
  return model::ok_status();
}

model::Status read_optional_int(const char* name, int minimum, int maximum,
                                std::optional<int>& target) {
  if (!env(name)) return model::ok_status();
  int value = 0;
  auto status = read_int(name, minimum, maximum, value);
  if (status.ok()) target = value;
  return status;
}

model::Status read_bool(const char* name, bool& target) {
  auto text = env(name);
  if (!text) return model::ok_status();
  if (*text == "1" || *text == "true" || *text == "on") {
    target = true;
  } else if (*text == "0" || *text == "false" || *text == "off") {
    target = false;
  } else {
    return config_error(name, "expected true or false");
  }
  return model::ok_status();
}

void read_string(const char* name, std::string& target) {
  if (auto text = env(name)) target = *text;
}

// "5s,30s,2m,1h" or plain milliseconds "500,1000".
model::Status read_schedule(const char* name, std::vector<std::int64_t>& target) {
  auto text = env(name);
  if (!text) return model::ok_status();
  std::vector<std::int64_t> schedule;
  std::string_view rest = *text;
  constexpr std::size_t kMaxAttempts = 32;
  while (!rest.empty() && schedule.size() < kMaxAttempts) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    std::int64_t multiplier_ms = 1;
    if (item.ends_with("ms")) {
      item.remove_suffix(2);
    } else if (item.ends_with('s')) {
      multiplier_ms = 1000, item.remove_suffix(1);
    } else if (item.ends_with('m')) {
      multiplier_ms = 60000, item.remove_suffix(1);
    } else if (item.ends_with('h')) {
      multiplier_ms = 3600000, item.remove_suffix(1);
    }
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (ec != std::errc() || ptr != item.data() + item.size() || value < 0) {
      return config_error(name, "expected a comma-separated list like 5s,30s,2m");
    }
    schedule.push_back(value * multiplier_ms);
  }
  if (schedule.empty() || !rest.empty()) return config_error(name, "1 to 32 delays");
  target = std::move(schedule);
  return model::ok_status();
}

}  // namespace

model::Result<Config> load_config_from_environment() {
  Config config;
  read_string("PAYRAIL_DATA_DIR", config.data_dir);
  read_string("PAYRAIL_DATABASE_URL", config.database_url);
  read_string("PAYRAIL_KAFKA_BROKERS", config.kafka_brokers);
  read_string("PAYRAIL_TOPIC_PREFIX", config.topic_prefix);
  read_string("PAYRAIL_KAFKA_DEBUG", config.kafka_debug);
  read_string("PAYRAIL_HTTP_ADDRESS", config.http_address);
  read_string("PAYRAIL_IDP_ISSUER", config.idp_issuer);
  read_string("PAYRAIL_IDP_AUDIENCE", config.idp_audience);
  config.idp_hs256_secret = env("PAYRAIL_IDP_HS256_SECRET");
  config.idp_jwks_file = env("PAYRAIL_IDP_JWKS_FILE");
  read_string("PAYRAIL_CONSOLE_CLIENT_ID", config.console_client_id);
  read_string("PAYRAIL_CONSOLE_CLIENT_SECRET", config.console_client_secret);
  read_string("PAYRAIL_CONSOLE_AUTHORIZATION_ENDPOINT", config.console_authorization_endpoint);
  read_string("PAYRAIL_CONSOLE_TOKEN_ENDPOINT", config.console_token_endpoint);
  read_string("PAYRAIL_CONSOLE_ORIGIN", config.console_origin);
  config.sanctions_dir = env("PAYRAIL_SANCTIONS_DIR");
  read_string("PAYRAIL_CHAIN_ADAPTER", config.chain_adapter);
  read_string("PAYRAIL_EVM_NETWORKS_FILE", config.evm_networks_file);
  read_string("PAYRAIL_RATE_SOURCE", config.rate_source);
  read_string("PAYRAIL_PAYOUT_PARTNER", config.payout_partner);
  read_string("PAYRAIL_COLLECTION_PROVIDER", config.collection_provider);
  read_string("PAYRAIL_WEBHOOK_ENCRYPTION_KEY", config.webhook_encryption_key_hex);
  read_string("PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS",
              config.webhook_encryption_key_previous_hex);
  config.webhook_ca_file = env("PAYRAIL_WEBHOOK_CA_FILE");
  read_string("PAYRAIL_LOG_LEVEL", config.log_level);
  read_string("PAYRAIL_METRICS_ADDRESS", config.metrics_address);

  const std::initializer_list<model::Status> checks{
      read_int("PAYRAIL_HTTP_PORT", 0, 65535, config.http_port),
      read_int("PAYRAIL_METRICS_PORT", 0, 65535, config.metrics_port),
      read_int("PAYRAIL_HTTP_THREADS", 1, 64, config.http_reactor_threads),
      read_int("PAYRAIL_HTTP_IDLE_TIMEOUT_MS", 100, 3600000, config.http_idle_timeout_ms),
      read_int("PAYRAIL_API_WORKERS", 1, 256, config.api_worker_threads),
      read_int("PAYRAIL_API_QUEUE_MAX", 1, 100000, config.api_queue_max),
      read_int("PAYRAIL_DB_POOL_SIZE", 1, 256, config.db_pool_size),
      read_int("PAYRAIL_DB_ACQUIRE_TIMEOUT_MS", 1, 60000, config.db_acquire_timeout_ms),
      read_int("PAYRAIL_CREATE_GROUP_MAX", 1, 64, config.create_group_max),
      read_int("PAYRAIL_CREATE_GROUPS", 1, 64, config.create_groups),
      read_int("PAYRAIL_CREATE_GROUP_STALL_MS", 0, 60000, config.create_group_stall_ms),
      read_int("PAYRAIL_KAFKA_SESSION_TIMEOUT_MS", 1000, 300000, config.kafka_session_timeout_ms),
      read_int("PAYRAIL_WORKER_BATCH_MAX", 1, 1000, config.worker_batch_max),
      read_int("PAYRAIL_WORKER_BATCH_WAIT_MS", 0, 1000, config.worker_batch_wait_ms),
      read_int("PAYRAIL_MESSAGE_ATTEMPTS_MAX", 1, 100, config.message_attempts_max),
      read_optional_int("PAYRAIL_KAFKA_FETCH_WAIT_MS", 1, 500, config.kafka_fetch_wait_ms),
      read_int("PAYRAIL_RATE_LIMIT_PER_SECOND", 1, 1000000, config.rate_limit_per_second),
      read_int("PAYRAIL_RATE_LIMIT_BURST", 1, 1000000, config.rate_limit_burst),
      read_optional_int("PAYRAIL_RATE_LIMIT_LEASE_TOKENS", 1, 10000,
                        config.rate_limit_lease_tokens),
      read_int("PAYRAIL_SCREENING_WAIT_MS", 0, 30000, config.screening_wait_ms),
      read_int("PAYRAIL_SETTLEMENT_DELAY_MS", 0, 600000, config.settlement_delay_ms),
      read_int("PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", 0, 600000, config.fiat_settlement_delay_ms),
      read_int("PAYRAIL_SANCTIONS_RELOAD_INTERVAL_MS", 100, 86400000,
               config.sanctions_reload_interval_ms),
      read_int("PAYRAIL_WEBHOOK_TIMEOUT_MS", 100, 60000, config.webhook_timeout_ms),
      read_int("PAYRAIL_WEBHOOK_CONCURRENCY", 1, 256, config.webhook_delivery_concurrency),
      read_int("PAYRAIL_COLLECTION_EXPIRES_AFTER_S", 60, 30 * 86400,
               config.collection_expires_after_s),
      read_int("PAYRAIL_EXPIRY_INTERVAL_MS", 50, 3600000, config.expiry_interval_ms),
      read_int("PAYRAIL_EXPIRY_TEST_CLOCK_OFFSET_S", 0, 366 * 86400,
               config.expiry_test_clock_offset_s),
      read_int("PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", 100, 86400000, config.outbox_redrive_after_ms),
      read_int("PAYRAIL_OUTBOX_POLL_INTERVAL_MS", 10, 60000, config.outbox_poll_interval_ms),
      read_int("PAYRAIL_CONSOLE_SESSION_TTL_S", 300, 7 * 86400, config.console_session_ttl_s),
      read_bool("PAYRAIL_HTTP_REUSE_PORT", config.http_reuse_port),
      read_bool("PAYRAIL_WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_TEST",
                config.webhook_allow_private_targets_in_test),
      read_schedule("PAYRAIL_WEBHOOK_RETRY_SCHEDULE", config.webhook_retry_schedule_ms),
  };
  for (const auto& check : checks) {
    if (!check.ok()) return check.error();
  }
  if (!is_loopback_address(config.http_address)) {
    return config_error("PAYRAIL_HTTP_ADDRESS",
                        "expected a loopback address (127.x.x.x, ::1 or localhost): the API serves "
                        "plain HTTP to its TLS-terminating proxy only");
  }
  if (config.console_authorization_endpoint.empty() != config.console_token_endpoint.empty()) {
    return config_error("PAYRAIL_CONSOLE_AUTHORIZATION_ENDPOINT",
                        "set it and PAYRAIL_CONSOLE_TOKEN_ENDPOINT together, or neither");
  }
  if (!config.console_client_id.empty() && !config.idp_jwks_file) {
    return config_error("PAYRAIL_CONSOLE_CLIENT_ID",
                        "console sign-in verifies ID tokens with RS256: set PAYRAIL_IDP_JWKS_FILE");
  }
  if (!config.chain_adapter.empty() && config.chain_adapter != "simulated" &&
      config.chain_adapter != "evm") {
    return config_error("PAYRAIL_CHAIN_ADAPTER", "expected empty (none), simulated or evm");
  }
  if (config.chain_adapter == "evm") {
    if (config.evm_networks_file.empty()) {
      return config_error("PAYRAIL_EVM_NETWORKS_FILE", "required with PAYRAIL_CHAIN_ADAPTER=evm");
    }
    // Read again by each process that uses it; a malformed file stops every process at start.
    if (auto networks = chain::load_evm_networks(config.evm_networks_file); !networks.ok()) {
      return networks.error();
    }
  }
  if (!partners::is_known_partner(config.payout_partner)) {
    return config_error("PAYRAIL_PAYOUT_PARTNER", "expected empty (none) or simulated");
  }
  if (!collections::is_known_provider(config.collection_provider)) {
    return config_error("PAYRAIL_COLLECTION_PROVIDER", "expected empty (none) or simulated");
  }
  if (!rates::is_known_source(config.rate_source)) {
    return config_error("PAYRAIL_RATE_SOURCE", "expected empty (none) or reference");
  }
  return config;
}

}  // namespace payrail::infra
