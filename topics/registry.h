// Every Kafka topic is declared here once: name, key, partitions, the producer, the one consumer
// group that applies it, and the message schema. Nothing else in the code spells a topic name.
//
// Messages are small pointers to Postgres rows (Postgres is the truth): a consumer re-reads the
// resource and applies the message only if the resource's state still allows it.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace payrail::topics {

struct TopicSpec {
  std::string_view name;
  std::string_view key;  // what the message key is; it keeps one resource's messages in order
  int partitions;
  std::string_view producer;
  std::string_view
      consumer_group;  // the designated consumer; its commit marks the message consumed
  std::string_view message_type;
  std::string_view message_schema;  // path under schemas/
  // An API request waits for this hop: a create answers once screening decided. Its consumer
  // fetches with kAnswerFetchWaitMs instead of kFetchWaitMs and waits at most kAnswerBatchWaitMs
  // for more of a batch (infra/programs/runtime/worker.cc).
  bool request_waits = false;
};

// How long the broker may hold a consumer's fetch that found nothing (librdkafka's
// fetch.wait.max.ms; PAYRAIL_KAFKA_FETCH_WAIT_MS overrides both). The embedded broker holds an
// empty fetch that long even when a message arrives meanwhile, so it is each hop's latency there
// (docs/design.md, "The embedded broker"); a shorter wait costs the broker more idle fetches.
inline constexpr int kFetchWaitMs = 5;
inline constexpr int kAnswerFetchWaitMs = 2;
// How long, at most, a loaded consumer of a topic a request waits for holds a batch's first
// message for more (PAYRAIL_WORKER_BATCH_WAIT_MS is every other role's, and caps this one too).
// None: the wait is on the path of every create's answer, and at half the peak rate it cost more
// latency than the larger batches saved (docs/design.md, "Worker batches").
inline constexpr int kAnswerBatchWaitMs = 0;

// API (POST /v1/payouts) -> screening worker.
inline constexpr TopicSpec kPayoutsRequested{"payouts.requested",
                                             "payout id",
                                             8,
                                             "api",
                                             "payrail-screening",
                                             "payout.requested",
                                             "schemas/messages/payout_reference.schema.json",
                                             true};

// Screening worker (auto-approval) and API (manual approval) -> execution worker.
inline constexpr TopicSpec kPayoutsApproved{"payouts.approved",
                                            "payout id",
                                            8,
                                            "payrail-screening, api",
                                            "payrail-execution",
                                            "payout.approved",
                                            "schemas/messages/payout_reference.schema.json"};

// Execution worker (after a successful broadcast) -> settlement worker.
inline constexpr TopicSpec kPayoutsBroadcast{"payouts.broadcast",
                                             "payout id",
                                             8,
                                             "payrail-execution",
                                             "payrail-settlement",
                                             "payout.broadcast",
                                             "schemas/messages/payout_reference.schema.json"};

// API (POST /v1/fiat-payouts) -> screening worker.
inline constexpr TopicSpec kFiatPayoutsRequested{
    "fiat_payouts.requested",
    "fiat payout id",
    8,
    "api",
    "payrail-screening",
    "fiat_payout.requested",
    "schemas/messages/fiat_payout_reference.schema.json",
    true};

// Screening worker (clear within auto-approval) and API (manual approval) -> execution worker,
// which sends the payout to the payout partner. The payout is already `processing`.
inline constexpr TopicSpec kFiatPayoutsApproved{
    "fiat_payouts.approved",
    "fiat payout id",
    8,
    "payrail-screening, api",
    "payrail-execution",
    "fiat_payout.approved",
    "schemas/messages/fiat_payout_reference.schema.json"};

// Execution worker (the partner accepted the payout) -> settlement worker, which asks the
// partner for the result.
inline constexpr TopicSpec kFiatPayoutsSent{"fiat_payouts.sent",
                                            "fiat payout id",
                                            8,
                                            "payrail-execution",
                                            "payrail-settlement",
                                            "fiat_payout.sent",
                                            "schemas/messages/fiat_payout_reference.schema.json"};

// Collection providers' notifications (payment received, failed, returned), recorded in
// PostgreSQL first (collection_provider_events) by the provider ingress: the test helpers of the
// API and `payrail collection-provider-event` -> settlement worker, which matches each to a
// collection by reference. The envelope's org_id is empty: a provider does not know which
// organization a payment is for until it is matched.
inline constexpr TopicSpec kCollectionProviderEvents{
    "collections.provider_events",
    "provider event id",
    8,
    "api (test helpers), payrail collection-provider-event",
    "payrail-settlement",
    "collection.provider_event",
    "schemas/messages/provider_event_reference.schema.json"};

// Settlement worker (a payment received) -> settlement worker (convert to USDC and credit).
inline constexpr TopicSpec kCollectionsReceived{
    "collections.received",
    "collection id",
    8,
    "payrail-settlement",
    "payrail-settlement",
    "collection.received",
    "schemas/messages/collection_reference.schema.json"};

// Every resource event (payout.*, fiat_payout.*, collection.*) -> webhook worker.
inline constexpr TopicSpec kEvents{"events",
                                   "resource id",
                                   8,
                                   "api and every worker",
                                   "payrail-webhooks",
                                   "event.created",
                                   "schemas/messages/event_reference.schema.json"};

std::span<const TopicSpec> all_topics();
const TopicSpec* find_topic(std::string_view name);

// The topic name on the broker: an optional prefix isolates parallel runs on one cluster.
std::string broker_topic_name(const TopicSpec& topic, std::string_view prefix);

}  // namespace payrail::topics
