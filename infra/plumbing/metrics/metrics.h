// Prometheus metrics of every Payrail process (prometheus-cpp). docs/metrics.md lists every name
// and label; this file is the only place that names them.
//
// Label values come from closed sets only: route patterns, topic and group names, resource
// types, statuses, reasons, pool names. Never an id, an organization, an address or a URL, so the
// number of series stays bounded whatever the traffic.
//
// Recording is cheap (a hash lookup and an atomic add) and safe from any thread. Counters of
// state changes are recorded only after the transaction that made the change committed (see
// pg::after_commit), so a rolled-back change is never counted.
#pragma once

#include <prometheus/registry.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace payrail::infra::metrics {

prometheus::Registry& registry();

// Serves GET /metrics on address:port for the rest of the process's life (port 0: a free port
// chosen by the kernel). Returns the port, or nullopt when it cannot listen (port in use).
// Adds payrail_build_info{process, version} and the process_* metrics (memory, descriptors,
// CPU, threads).
std::optional<int> serve(std::string_view process_name, const std::string& address, int port);

// --- HTTP API: one observation per answered request ----------------------------------------
// `route` is the route pattern ("/v1/payouts/{id}"), "unmatched" when no route matched.
void record_http_request(std::string_view method, std::string_view route, int status,
                         double seconds);

// --- Kafka consumers (one process = one member of the role's group) ------------------------
enum class MessageOutcome { applied, retried, undecodable };
void record_message(std::string_view topic, std::string_view group, MessageOutcome outcome,
                    double seconds);
// Messages after this member's position on the partitions it owns of `topic`.
void set_consumer_lag(std::string_view topic, std::string_view group, long messages);
// One batch a worker applied: its size.
void record_batch(std::string_view group, std::size_t messages);
// A message that failed for a reason of its own: counted and retried, or parked.
void record_message_failure(std::string_view topic, std::string_view group, bool parked);
void set_assigned_partitions(std::string_view topic, std::string_view group, int partitions);
void record_rebalance(std::string_view group, std::string_view kind);  // assigned | revoked

// --- Outbox -------------------------------------------------------------------------------
void record_outbox_publication(std::string_view topic, long published, long failed);
void record_outbox_redrive(long messages);
struct OutboxBacklog {
  std::string topic;
  long unpublished = 0;
  double oldest_unpublished_seconds = 0;
  long unconsumed = 0;  // published, not yet applied by the topic's consumer group
  double oldest_unconsumed_seconds = 0;
  long parked = 0;  // unconsumed messages a worker parked (0011_message_failures.sql)
};
// The whole table, per topic; topics absent from `backlog` are set to zero.
void set_outbox_backlog(const std::vector<OutboxBacklog>& backlog,
                        const std::vector<std::string>& all_topics);

// --- Resources (payouts, fiat payouts, collections, ...) ------------------------------------
// A committed state change: `status` reached, `seconds_since_created` after the resource was
// created; `created` for the first state of a resource.
void record_transition(std::string_view resource, std::string_view status, bool created,
                       double seconds_since_created);

// --- Screening ----------------------------------------------------------------------------
// `decision` is clear or blocked; one count per reason ("none" when there is no reason).
void record_screening_decision(std::string_view resource, std::string_view decision,
                               const std::vector<std::string>& reasons);
// The sanctions snapshot in use: payrail_sanctions_list_info{version} 1 (the previous version's
// series is removed), and its address and name counts.
void set_sanctions_list(const std::string& version, long addresses, long names);

// --- EVM hot wallets (live payouts, docs/evm.md) ----------------------------------------------
// The network's hot wallet: payrail_evm_hot_wallet_info{network, address} 1 (one address per
// network: a closed set).
void set_hot_wallet_info(std::string_view network, std::string_view address);
// What the hot wallet holds, in the asset's units (ETH: the native coin).
void set_hot_wallet_balance(std::string_view network, std::string_view asset, double units);
// Live payouts the execution process holds back because the hot wallet cannot fund them.
void set_payouts_awaiting_funds(std::string_view network, std::string_view asset, long payouts);

// --- Webhooks -----------------------------------------------------------------------------
// `result`: succeeded, http_error (an answer that is not 2xx), transport_error (connection, TLS,
// timeout), refused (the target failed the SSRF rules or the secret cannot be opened),
// interrupted (cut short by a shutdown; retried). `seconds`: the HTTP exchange.
void record_webhook_attempt(std::string_view result, double seconds);
// How the delivery moved on: succeeded, retry_scheduled, failed, ...
void record_webhook_settled(std::string_view state);

// --- PostgreSQL pools ---------------------------------------------------------------------
struct PoolMetrics;  // the series of one pool, resolved once
PoolMetrics& pool_metrics(std::string_view pool, std::size_t max_connections);
void record_pool_acquire(PoolMetrics& pool, double wait_seconds, bool timed_out);
void set_pool_connections(PoolMetrics& pool, std::size_t in_use, std::size_t idle);
void record_transaction(PoolMetrics& pool, std::string_view outcome);  // committed | ...
// A group of requests written in one transaction (store::GroupedWrites); `pass` is alone (a group
// of one), together (no savepoints) or isolated (a savepoint per request, after a refusal).
void record_write_group(std::string_view pool, std::size_t requests, std::string_view pass);

// --- Rate limits --------------------------------------------------------------------------
// One lease of tokens from the shared bucket: `granted` tokens (0 when the bucket was empty).
void record_rate_limit_lease(long granted, double seconds);
void record_rate_limit_decision(bool allowed);

}  // namespace payrail::infra::metrics
