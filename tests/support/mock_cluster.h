// A one-broker librdkafka mock cluster in the test's own process, with the registry's topics as
// the embedded broker creates them: the real Kafka protocol for tests of the relay and the
// consumer without a broker process.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>

namespace payrail::testing {

class MockCluster {
 public:
  MockCluster();
  ~MockCluster();
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  bool ready() const { return cluster_ != nullptr; }
  std::string bootstrap() const { return rd_kafka_mock_cluster_bootstraps(cluster_); }

 private:
  rd_kafka_t* handle_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
};

}  // namespace payrail::testing
