// The standard process_* metrics of the Prometheus client libraries, read from /proc/self at
// each scrape: resident and virtual memory, open and maximum file descriptors, CPU time, start
// time and threads. The soak test (tests/soak/run) watches the first two.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

namespace payrail::infra::metrics {

class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace payrail::infra::metrics
