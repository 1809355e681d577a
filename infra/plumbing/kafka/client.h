// What every client of the broker shares: where the broker is and how to connect to it, and the
// plain librdkafka handle that admin requests go through.
#pragma once

#include <string>
#include <utility>
#include <vector>

struct rd_kafka_s;

namespace payrail::infra::kafka {

using Properties = std::vector<std::pair<std::string, std::string>>;

// bootstrap.servers and the connection settings every producer, consumer and admin handle uses;
// each adds its own. Nagle is off: it held a small request while an earlier one was
// unacknowledged, until the broker's delayed ACK (40 ms): docs/design.md, "The embedded broker".
Properties connection_properties(const std::string& brokers);

// A handle for admin requests (it produces nothing) with connection_properties(brokers) and
// `more`; nullptr and `error_text` when librdkafka refused a property or the handle.
rd_kafka_s* create_admin_handle(const std::string& brokers, const Properties& more,
                                std::string& error_text);

}  // namespace payrail::infra::kafka
