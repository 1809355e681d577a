// Configuration comes from environment variables only; every setting has a documented default
// (docs/configuration.md). A malformed value stops the process at start-up with a clear error
// rather than running with a surprise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra {

struct Config {
  // Embedded stack and connections.
  std::string data_dir = ".payrail";
  std::string database_url = "postgresql://payrail@127.0.0.1:55432/payrail";
  std::string kafka_brokers = "127.0.0.1:29092";
  std::string topic_prefix;  // isolates topics of parallel test runs on one cluster
  int kafka_session_timeout_ms = 6000;
  // Workers apply up to this many messages per transaction (whatever has arrived; while messages
  // keep coming they wait worker_batch_wait_ms after the first for more, see kafka::next_batch).
  int worker_batch_max = 100;
  int worker_batch_wait_ms = 20;
  // A message failing for a reason of its own is parked after this many attempts.
  int message_attempts_max = 5;
  // See ConsumerOptions::fetch_wait_ms; unset: per topic (topics::kFetchWaitMs).
  std::optional<int> kafka_fetch_wait_ms;
  std::string kafka_debug;  // librdkafka `debug` contexts, e.g. "cgrp,fetch" (troubleshooting)

  // HTTP API.
  // Plain HTTP on a loopback address only: clients reach the API through the TLS-terminating
  // proxy (docs/design.md "HTTPS").
  std::string http_address = "127.0.0.1";
  int http_port = 8080;
  bool http_reuse_port = false;  // several API processes on one port (SO_REUSEPORT)
  int http_reactor_threads = 2;
  int http_idle_timeout_ms = 60000;  // keep-alive connections idle this long are closed
  // Threads running handlers. A create holds its thread until its group commits, so this also
  // bounds how many creates can be waiting to form the next group (docs/design.md, "Grouped
  // creates").
  int api_worker_threads = 32;
  int api_queue_max = 2048;
  int db_pool_size = 16;
  int db_acquire_timeout_ms = 2000;
  // Creates that arrive while others are written share a transaction (store::GroupedWrites): at
  // most this many per transaction, and this many such transactions at once; a second one starts
  // only once the one being written has taken this long (it is stalled).
  int create_group_max = 32;
  int create_groups = 2;
  int create_group_stall_ms = 20;

  // Identity-provider sessions.
  std::string idp_issuer = "payrail-dev";
  std::string idp_audience = "payrail-api";
  std::optional<std::string> idp_hs256_secret;
  std::optional<std::string> idp_jwks_file;

  // The web console (docs/console.md). OpenID Connect sign-in exists when a client id is set: the
  // provider is idp_issuer (discovery at <issuer>/.well-known/openid-configuration unless both
  // endpoints are set), ID tokens are verified with idp_jwks_file and the client id as audience.
  std::string console_client_id;
  std::string console_client_secret;
  std::string console_authorization_endpoint;
  std::string console_token_endpoint;
  // The origins state-changing console requests may come from (comma-separated); empty: the one
  // the browser addressed, https://<Host>.
  std::string console_origin;
  int console_session_ttl_s = 8 * 3600;

  // Traffic limits.
  int rate_limit_per_second = 100;
  int rate_limit_burst = 200;
  std::optional<int> rate_limit_lease_tokens;  // default: per_second / 10, at least 1

  // Payouts.
  int screening_wait_ms = 2000;
  int settlement_delay_ms = 300;
  std::optional<std::string> sanctions_dir;
  int sanctions_reload_interval_ms = 30000;
  std::string chain_adapter;  // empty: no live chain adapter configured; simulated; evm
  // With chain_adapter evm: the networks file (infra/adapters/chain/evm_networks.h).
  std::string evm_networks_file;
  std::string rate_source;  // empty: no live exchange rates (infra/adapters/rates/rate_source.h)

  // Fiat payouts.
  std::string
      payout_partner;  // empty: no live payout partner (infra/adapters/partners/payout_partner.h)
  int fiat_settlement_delay_ms = 1000;  // the simulated partner's time from send to result

  // Collections.
  std::string
      collection_provider;  // empty: no live collection provider (infra/adapters/collections)
  int collection_expires_after_s = 72 * 3600;
  int expiry_interval_ms = 1000;  // how often the expiry worker looks for due collections
  // TEST MODE ONLY: seconds the expiry worker adds to the database's now() when it compares
  // test-mode collections' expires_at (proves expiry without waiting). Live collections always
  // expire by the database's own clock. Never set it in production.
  int expiry_test_clock_offset_s = 0;

  // Webhooks.
  std::string webhook_encryption_key_hex;  // 64 hex chars (AES-256-GCM key)
  // The key being rotated out: values it sealed can still be opened (crypto::DataKey).
  std::string webhook_encryption_key_previous_hex;
  std::optional<std::string> webhook_ca_file;
  bool webhook_allow_private_targets_in_test = false;
  std::vector<std::int64_t> webhook_retry_schedule_ms{
      5000, 30000, 120000, 600000, 1800000, 3600000, 10800000, 21600000, 43200000, 86400000};
  int webhook_timeout_ms = 10000;
  int webhook_delivery_concurrency = 8;

  // Outbox.
  int outbox_redrive_after_ms = 30000;
  int outbox_poll_interval_ms = 200;

  // Metrics: every process serves Prometheus text on its own port (0: a free port, logged).
  std::string metrics_address = "127.0.0.1";
  int metrics_port = 0;

  std::string log_level = "info";
};

// Reads every PAYRAIL_* variable. Unknown values or out-of-range numbers are errors.
model::Result<Config> load_config_from_environment();

}  // namespace payrail::infra
