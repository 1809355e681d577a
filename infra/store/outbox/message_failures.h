// Messages a worker could not apply (0011_message_failures.sql): counted, retried with backoff,
// parked after the attempts allowed, re-driven by an operator once the cause is fixed.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <vector>

namespace payrail::infra::store::message_failures {

struct Failure {
  std::string message_id;
  std::string consumer_group;
  std::string topic;  // registry name, e.g. payouts.requested
  std::string resource_id;
  std::string error;
};

struct Counted {
  int attempts = 0;
  bool parked = false;
};

// Counts one failed attempt (inside the transaction that rolled the message back); the message
// is parked once `attempts_max` attempts failed since it was first seen or last re-driven.
Counted record(pqxx::work& tx, const Failure& failure, int attempts_max);

struct Row {
  std::string message_id;
  std::string consumer_group;
  std::string topic;
  std::string resource_id;
  int attempts = 0;
  std::string last_error;
  std::string status;  // retrying | parked | redriven | resolved (its message was applied since)
  std::string first_failed_at;
  std::string last_failed_at;
  int redrive_count = 0;
};

// Newest first; `status` empty for all, else one of the statuses above.
std::vector<Row> list(pqxx::work& tx, const std::string& status, int limit);

// Re-drives parked messages (one by id, or every parked one of `topic`, or all when both are
// empty): the attempts start again and the relay publishes the outbox message again. Returns
// the message ids re-driven.
std::vector<std::string> redrive(pqxx::work& tx, const std::optional<std::string>& message_id,
                                 const std::optional<std::string>& topic);

// Parked messages per topic, for the payrail_messages_parked gauge.
std::vector<std::pair<std::string, long>> parked_per_topic(pqxx::work& tx);

}  // namespace payrail::infra::store::message_failures
