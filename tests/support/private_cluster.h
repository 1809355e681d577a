// A PostgreSQL cluster of a test's own (initdb in a temporary folder, with infra/scripts/common.sh
// as infra/test does), for fault tests that stop and restart PostgreSQL without disturbing the
// shared test cluster. Holds one migrated database, `payrail`.
#pragma once

#include <string>

namespace payrail::testing {

class PrivateCluster {
 public:
  PrivateCluster();
  ~PrivateCluster();
  PrivateCluster(const PrivateCluster&) = delete;
  PrivateCluster& operator=(const PrivateCluster&) = delete;

  int port() const { return port_; }
  std::string url() const;  // of the migrated database
  void start();
  // pg_ctl stop -m immediate: every backend dies at once, no checkpoint (a crash, as far as
  // clients can tell).
  void stop_immediately();

 private:
  void run(const std::string& body) const;

  std::string directory_;
  int port_ = 0;
};

}  // namespace payrail::testing
