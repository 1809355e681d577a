#include "tests/support/private_cluster.h"

#include <sys/wait.h>

#include <cstdlib>
#include <stdexcept>

#include "schemas/model/common/source_tree.h"
#include "tests/support/process.h"

namespace payrail::testing {

PrivateCluster::PrivateCluster() {
  char folder[] = "/tmp/payrail-cluster-XXXXXX";
  if (mkdtemp(folder) == nullptr) throw std::runtime_error("mkdtemp failed");
  directory_ = folder;
  run("chmod 755 \"$DIR\"");
  port_ = free_port();
  start();
  run("ensure_database \"$PORT\" payrail && PAYRAIL_DATABASE_URL=" + url() + " " +
      bin_path("infra/payrail") + " migrate >/dev/null");
}

PrivateCluster::~PrivateCluster() {
  try {
    run("stop_postgres \"$DIR/pg\"; rm -rf \"$DIR\"");
  } catch (const std::exception&) {
    // Nothing more to do in a destructor.
  }
}

std::string PrivateCluster::url() const {
  return "postgresql://payrail@127.0.0.1:" + std::to_string(port_) + "/payrail";
}

void PrivateCluster::start() {
  run("PAYRAIL_PG_FSYNC=off start_postgres \"$DIR/pg\" \"$PORT\"");
}

void PrivateCluster::stop_immediately() {
  run("as_postgres_user \"$(postgres_user)\" \"$(postgres_bin_dir)/pg_ctl\" -D \"$DIR/pg\" "
      "-m immediate -w stop >/dev/null");
}

// Runs `body` in bash with common.sh's functions and DIR/PORT set.
void PrivateCluster::run(const std::string& body) const {
  const std::string common = std::string(model::source_directory()) + "/infra/scripts/common.sh";
  const std::string command = "DIR='" + directory_ + "' PORT=" + std::to_string(port_) +
                              " bash -c 'set -e; source \"" + common + "\"; " + body + "' >&2";
  const int status = std::system(command.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("private cluster command failed: " + body);
  }
}

}  // namespace payrail::testing
