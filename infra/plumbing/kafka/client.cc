#include "infra/plumbing/kafka/client.h"

#include <librdkafka/rdkafka.h>

namespace payrail::infra::kafka {

Properties connection_properties(const std::string& brokers) {
  return {
      {"bootstrap.servers", brokers},
      {"socket.nagle.disable", "true"},
      {"reconnect.backoff.ms", "100"},
      {"reconnect.backoff.max.ms", "2000"},
      {"log_level", "3"},
  };
}

rd_kafka_s* create_admin_handle(const std::string& brokers, const Properties& more,
                                std::string& error_text) {
  char error[512] = "";
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  auto properties = connection_properties(brokers);
  properties.insert(properties.end(), more.begin(), more.end());
  for (const auto& [name, value] : properties) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), error, sizeof error) !=
        RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      error_text = error;
      return nullptr;
    }
  }
  rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (handle == nullptr) {  // rd_kafka_new takes conf only when it succeeds
    rd_kafka_conf_destroy(conf);
    error_text = error;
  }
  return handle;
}

}  // namespace payrail::infra::kafka
