#include "tests/support/stack.h"

#include <sys/wait.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <thread>

#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/crypto/crypto.h"
#include "schemas/model/common/source_tree.h"

namespace payrail::testing {
namespace {

constexpr auto kReadyTimeout = std::chrono::seconds(60);

int run_shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string binary_of(const std::string& role) {
  if (role == "api") return bin_path("api/payrail-api");
  if (role == "broker") return bin_path("infra/payrail-broker");
  return bin_path("workers/payrail-" + role);
}

}  // namespace

std::string kyb_submission_body(const std::string& legal_name) {
  return R"({"legal_name":")" + legal_name +
         R"(","registration_no":"BC1234567","incorporation_country":"CA",)"
         R"("beneficial_owners":[{"name":"Ada Lovelace","dob":"1985-12-10",)"
         R"("ownership_pct":"60","country":"GB"},{"name":"Grace Hopper","dob":"1956-12-09",)"
         R"("ownership_pct":25.5,"country":"US"}],)"
         R"("documents":[{"type":"certificate_of_incorporation","reference":"doc-001"},)"
         R"({"type":"proof_of_address","reference":"doc-002"}]})";
}

TestStack::TestStack(StackOptions options)
    : options_(std::move(options)), database_(std::make_unique<TestDatabase>()) {
  const int kafka_port = free_port();
  http_port_ = free_port();
  env_ = {
      {"PAYRAIL_DATABASE_URL", database_->url()},
      {"PAYRAIL_KAFKA_PORT", std::to_string(kafka_port)},
      {"PAYRAIL_KAFKA_BROKERS", "127.0.0.1:" + std::to_string(kafka_port)},
      {"PAYRAIL_HTTP_PORT", std::to_string(http_port_)},
      {"PAYRAIL_IDP_HS256_SECRET", kTestSessionSecret},
      {"PAYRAIL_WEBHOOK_ENCRYPTION_KEY",
       infra::crypto::hex_encode(infra::crypto::random_bytes(32))},
      {"PAYRAIL_WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_TEST", "true"},
      {"PAYRAIL_SETTLEMENT_DELAY_MS", "100"},
      // Tests assert the 202/403 answers, which come only if screening decides within the wait;
      // a loaded CI machine must not turn them into 201 pending. Decisions end the wait early.
      {"PAYRAIL_SCREENING_WAIT_MS", "10000"},
      {"PAYRAIL_OUTBOX_REDRIVE_AFTER_MS", "3000"},
      {"PAYRAIL_KAFKA_SESSION_TIMEOUT_MS", "6000"},
      {"PAYRAIL_DB_POOL_SIZE", "8"},
      {"PAYRAIL_API_WORKERS", "8"},
      {"PAYRAIL_METRICS_PORT", "0"},  // each process picks a free port and logs it
  };
  for (const auto& [key, value] : options_.env) env_[key] = value;
  std::vector<std::string> roles{"broker", "api"};
  roles.insert(roles.end(), options_.workers.begin(), options_.workers.end());
  for (const auto& role : roles) {
    const auto found = options_.processes.find(role);
    const int count = found == options_.processes.end() ? 1 : found->second;
    for (int i = 1; i <= count; ++i) {
      add_process(i == 1 ? role : role + "-" + std::to_string(i), role);
    }
  }
  // The broker first (every other process connects to it), then all the others at once: each
  // worker's first join of its consumer group waits out the broker's initial rebalance delay
  // (3 s in librdkafka's mock cluster), and those delays overlap instead of adding up.
  start(process_names("broker"));
  std::vector<std::string> others;
  for (const auto& role : roles) {
    if (role == "broker") continue;
    const auto names = process_names(role);
    others.insert(others.end(), names.begin(), names.end());
  }
  start(others);
  if (options_.tls) prepare_tls_proxy();
  http_ = std::make_unique<HttpClient>(api_url(), ca_file());
}

// The same certificate script and proxy configuration as infra/up, in a folder of this stack.
void TestStack::prepare_tls_proxy() {
  const std::string scripts = std::string(model::source_directory()) + "/infra/scripts";
  char folder[] = "/tmp/payrail-tls-XXXXXX";
  if (mkdtemp(folder) == nullptr) throw std::runtime_error("mkdtemp failed");
  tls_dir_ = folder;
  tls_port_ = free_port();
  const std::string pem = tls_dir_ + "/proxy.pem";
  const std::string config = tls_dir_ + "/haproxy.cfg";
  // The proxy closes idle client connections when the API would (infra/up does the same).
  const auto idle = env_.find("PAYRAIL_HTTP_IDLE_TIMEOUT_MS");
  const std::string idle_ms = idle == env_.end() ? "60000" : idle->second;
  const std::string command = scripts + "/tls-certificate " + tls_dir_ + " && cat " + tls_dir_ +
                              "/server.pem " + tls_dir_ + "/server-key.pem > " + pem + " && " +
                              scripts + "/tls-proxy-config 127.0.0.1 " + std::to_string(tls_port_) +
                              " " + std::to_string(http_port_) + " " + pem + " " + idle_ms + " > " +
                              config;
  if (run_shell(command) != 0) throw std::runtime_error("cannot prepare the TLS proxy: " + command);
  processes_["proxy"] = std::make_unique<ChildProcess>(
      "proxy", "/usr/sbin/haproxy", std::map<std::string, std::string>{},
      std::vector<std::string>{"-f", config, "-db"});
  roles_["proxy"] = "proxy";
  start_order_.push_back("proxy");  // stopped first
  start("proxy");
}

void TestStack::add_process(const std::string& name, const std::string& role) {
  auto env = env_;
  if (role == "api") {
    const int port = name == "api" ? http_port_ : free_port();
    env["PAYRAIL_HTTP_PORT"] = std::to_string(port);
    api_ports_[name] = port;
  }
  processes_[name] = std::make_unique<ChildProcess>(name, binary_of(role), env);
  roles_[name] = role;
  start_order_.push_back(name);
}

TestStack::~TestStack() {
  // Workers first, then the API, then the broker: nothing is left talking to a dead peer.
  for (auto name = start_order_.rbegin(); name != start_order_.rend(); ++name) {
    processes_[*name]->stop();
  }
  if (!tls_dir_.empty()) run_shell("rm -rf " + tls_dir_);
}

std::string TestStack::api_url() const {
  if (tls_port_ != 0) return "https://localhost:" + std::to_string(tls_port_);
  return plain_url();
}

std::string TestStack::plain_url() const {
  return "http://127.0.0.1:" + std::to_string(http_port_);
}

std::string TestStack::api_process_url(const std::string& name) const {
  const auto found = api_ports_.find(name);
  if (found == api_ports_.end()) throw std::runtime_error("no such API process: " + name);
  return "http://127.0.0.1:" + std::to_string(found->second);
}

std::vector<std::string> TestStack::process_names(const std::string& role) const {
  std::vector<std::string> names;
  for (const auto& name : start_order_) {
    if (roles_.at(name) == role) names.push_back(name);
  }
  return names;
}

std::string TestStack::metrics_url(const std::string& name) {
  // Workers and the API log {"event":"metrics.listening",...,"port":"N"}; the broker prints
  // "payrail-broker metrics on port N". The last occurrence is the current run's.
  const auto log = process(name).log();
  const bool broker = roles_.at(name) == "broker";
  const std::string marker = broker ? "metrics on port " : "\"metrics.listening\"";
  const auto at = log.rfind(marker);
  if (at == std::string::npos) throw std::runtime_error(name + " logged no metrics port");
  auto port_at = broker ? at + marker.size() : log.find("\"port\":\"", at) + 8;
  const auto port = std::stoi(log.substr(port_at, log.find_first_not_of("0123456789", port_at)));
  return "http://127.0.0.1:" + std::to_string(port);
}

ChildProcess& TestStack::process(const std::string& name) {
  auto it = processes_.find(name);
  if (it == processes_.end()) throw std::runtime_error("no such process: " + name);
  return *it->second;
}

void TestStack::start(const std::string& name) {
  auto& child = process(name);
  if (child.running()) child.stop();
  child.start();
  wait_ready(name);
}

void TestStack::start(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    auto& child = process(name);
    if (child.running()) child.stop();
    child.start();
  }
  for (const auto& name : names) wait_ready(name);
}

void TestStack::stop(const std::string& name, int signal) {
  process(name).stop(signal);
}

void TestStack::wait_ready(const std::string& name) {
  auto& child = process(name);
  const auto& role = roles_.at(name);
  if (role == "proxy") {
    const HttpClient client(api_url(), ca_file());
    const auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
    for (;;) {
      try {
        if (client.get("/v1/health").status == 200) return;
      } catch (const std::exception&) {
        // not listening yet
      }
      if (std::chrono::steady_clock::now() > deadline || !child.running()) {
        throw std::runtime_error("the TLS proxy did not become ready; log:\n" + child.log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  const char* marker = role == "broker"   ? "payrail-broker ready"
                       : role == "api"    ? "api.listening"
                       : role == "expiry" ? "expiry.started"
                                          : "consumer.assigned";
  if (!child.wait_for_log(marker, kReadyTimeout)) {
    throw std::runtime_error(role + " did not become ready; log:\n" + child.log());
  }
  if (role != "api") return;
  // Ready means healthy: Postgres and the broker answered the API's own probe.
  const HttpClient client(api_process_url(name));
  const auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (client.get("/v1/health").status != 200) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("api did not become healthy; log:\n" + child.log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string TestStack::dev_session(const std::string& email, const std::string& subject) const {
  infra::auth::JwtConfig config{.issuer = "payrail-dev",
                                .audience = "payrail-api",
                                .hs256_secret = std::string(kTestSessionSecret)};
  return infra::auth::mint_hs256_session(config, subject.empty() ? "user|" + email : subject, email,
                                         std::time(nullptr), 3600);
}

TestOrganization TestStack::create_organization() {
  static std::atomic<int> counter{0};
  const auto email =
      "owner" + std::to_string(counter++) + "-" + infra::crypto::random_base62(6) + "@example.com";
  TestOrganization organization;
  organization.session = dev_session(email);
  const auto response =
      http_->post("/v1/organizations",
                  R"({"legal_name":"Test Org Ltd","display_name":"Test Org","country":"CA"})",
                  {{"Authorization", "Bearer " + organization.session}});
  if (response.status != 201) {
    throw std::runtime_error("create organization: " + std::to_string(response.status) + " " +
                             response.body);
  }
  auto json = response.json();
  organization.id = json["id"].GetString();
  organization.test_key = json["api_key"]["key"].GetString();
  return organization;
}

std::string TestStack::verify_business(const TestOrganization& organization) {
  const auto submitted = http_->post("/v1/kyb", kyb_submission_body(),
                                     {{"Authorization", "Bearer " + organization.session},
                                      {"Payrail-Organization", organization.id}});
  if (submitted.status != 201) {
    throw std::runtime_error("submit KYB: " + std::to_string(submitted.status) + " " +
                             submitted.body);
  }
  const std::string id = submitted.json()["id"].GetString();
  for (const char* to : {"in_review", "verified"}) {
    const auto [code, output] =
        cli({"kyb-review", "--submission", id, "--to", to, "--operator", "test-operator"});
    if (code != 0) throw std::runtime_error("kyb-review --to " + std::string(to) + ": " + output);
  }
  return id;
}

std::pair<int, std::string> TestStack::cli(const std::vector<std::string>& arguments) const {
  return run_cli(env_, arguments);
}

}  // namespace payrail::testing
