// The whole service for end-to-end and fault tests: its own database, its own embedded broker
// (a payrail-broker process on its own port), the API and the worker processes, all real
// binaries talking real HTTP, real Kafka protocol and real PostgreSQL.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/database.h"
#include "tests/support/http_client.h"
#include "tests/support/process.h"

namespace payrail::testing {

inline constexpr const char* kTestSessionSecret = "payrail-test-session-secret-0123456789abcdef";

struct StackOptions {
  std::vector<std::string> workers{"screening", "execution", "settlement", "expiry", "webhooks"};
  std::map<std::string, std::string> env;  // overrides for every process
  // Processes per role ("api" or a worker role; 1 when absent). The first process of a role is
  // named after it, the others "<role>-2", "<role>-3", ...; every API process has its own port.
  std::map<std::string, int> processes;
  // Put the TLS-terminating proxy (HAProxy, as infra/up does) in front of the API: http() and
  // api_url() then speak HTTPS to it, trusting a CA generated for this stack.
  bool tls = false;
};

struct TestOrganization {
  std::string id;
  std::string test_key;
  std::string session;  // the owner's identity-provider session
};

// A valid POST /v1/kyb body (two beneficial owners, two documents).
std::string kyb_submission_body(const std::string& legal_name = "Test Org Ltd");

class TestStack {
 public:
  explicit TestStack(StackOptions options = {});
  ~TestStack();

  const TestDatabase& database() const { return *database_; }
  const HttpClient& http() const { return *http_; }
  std::string api_url() const;    // https://localhost:<proxy> with tls, else the API itself
  std::string plain_url() const;  // the API's own plain-HTTP loopback listener
  int http_port() const { return http_port_; }
  int tls_port() const { return tls_port_; }  // 0 without tls
  std::string ca_file() const { return tls_dir_.empty() ? "" : tls_dir_ + "/ca.pem"; }
  ChildProcess& process(const std::string& name);  // "api", "broker", "screening-2", "proxy", ...
  const std::map<std::string, std::string>& env() const { return env_; }
  // The names of the processes of a role, the first one first.
  std::vector<std::string> process_names(const std::string& role) const;
  // The plain-HTTP URL of one API process ("api", "api-2", ...).
  std::string api_process_url(const std::string& name) const;
  // http://127.0.0.1:<port> where the process serves /metrics (read from its log).
  std::string metrics_url(const std::string& name);

  // Starts a stopped process (or restarts a running one) and waits until it is ready.
  void start(const std::string& name);
  // Starts them all, then waits for each (members of one group join in one rebalance).
  void start(const std::vector<std::string>& names);
  void stop(const std::string& name, int signal = 15);

  std::string dev_session(const std::string& email, const std::string& subject = "") const;
  TestOrganization create_organization();
  // Takes the organization through business verification as a real one goes: the owner submits
  // KYB (POST /v1/kyb with the session), an operator reviews it with the CLI (in_review, then
  // verified). Returns the submission id; throws on any failure.
  std::string verify_business(const TestOrganization& organization);

  // Runs the CLI with this stack's configuration; returns its exit code and output.
  std::pair<int, std::string> cli(const std::vector<std::string>& arguments) const;

 private:
  void wait_ready(const std::string& name);
  void add_process(const std::string& name, const std::string& role);
  void prepare_tls_proxy();

  StackOptions options_;
  std::unique_ptr<TestDatabase> database_;
  std::map<std::string, std::string> env_;
  std::map<std::string, std::unique_ptr<ChildProcess>> processes_;
  std::map<std::string, std::string> roles_;  // process name -> role
  std::map<std::string, int> api_ports_;      // API process name -> its HTTP port
  std::vector<std::string> start_order_;      // stopped in reverse
  std::unique_ptr<HttpClient> http_;
  int http_port_ = 0;
  int tls_port_ = 0;
  std::string tls_dir_;
};

}  // namespace payrail::testing
