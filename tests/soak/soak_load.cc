// payrail-soak-load: the steady load of tests/soak/run. It starts an HTTPS webhook receiver
// first (writing its certificate's path to --ca-path-file, so the stack can be started trusting
// it), waits for the stack, creates organizations with a webhook endpoint each, then creates
// payouts at a constant rate (a mix that completes, fails its broadcast or is blocked) and lists
// them, for --minutes (a third of them fiat payouts). It prints one line a minute and a summary;
// never a test.
#include <atomic>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/https_receiver.h"
#include "tests/support/payouts.h"
#include "tests/support/tokens.h"

namespace {

using namespace payrail::testing;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string url;
  std::string ca_path_file;
  double minutes = 10;
  double rate = 10;  // payouts per second
  int organizations = 4;
  int threads = 8;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--url") options.url = value;
    if (name == "--ca-path-file") options.ca_path_file = value;
    if (name == "--minutes") options.minutes = std::stod(value);
    if (name == "--rate") options.rate = std::stod(value);
  }
  return options;
}

std::string session_for(const std::string& email) {
  const char* secret = std::getenv("PAYRAIL_IDP_HS256_SECRET");
  payrail::infra::auth::JwtConfig config{
      .issuer = "payrail-dev",
      .audience = "payrail-api",
      .hs256_secret =
          std::string(secret ? secret : "payrail-development-session-secret-do-not-use")};
  return payrail::infra::auth::mint_hs256_session(config, "soak|" + email, email,
                                                  std::time(nullptr), 7200);
}

// An organization with a webhook endpoint for its payouts' outcomes; returns its test key.
std::string prepare_organization(const HttpClient& http, const HttpsReceiver& receiver, int index) {
  const auto session = session_for("soak-" + std::to_string(index) + "-" +
                                   payrail::infra::crypto::random_base62(6) + "@example.com");
  const auto organization = http.post(
      "/v1/organizations", R"({"legal_name":"Soak Ltd","display_name":"Soak","country":"CA"})",
      with_session(session));
  if (organization.status != 201) throw std::runtime_error("organization: " + organization.body);
  const std::string key = organization.json()["api_key"]["key"].GetString();
  const auto endpoint =
      http.post("/v1/webhooks",
                R"({"url":")" + receiver.url("/soak") +
                    R"(","events":["payout.completed","payout.failed","payout.blocked",)"
                    R"("fiat_payout.completed","fiat_payout.failed","fiat_payout.blocked"]})",
                with_key(key));
  if (endpoint.status != 201) throw std::runtime_error("endpoint: " + endpoint.body);
  return key;
}

// The n-th create: every third a fiat payout (18.45 MXN, 1 USDC), the others 0.01 USDC payouts;
// one in ten of each fails (broadcast or partner) and one in ten is blocked by screening.
int create(const HttpClient& http, const std::string& key, long n) {
  const auto idempotency_key = "soak-" + std::to_string(n);
  if (n % 3 == 2) {
    const auto name = n % 10 == 0   ? "Ana Souza FAIL"
                      : n % 10 == 1 ? "Ana Souza BLOCKED"
                                    : "Ana Souza";
    return create_fiat_payout(http, key, idempotency_key,
                              fiat_payout_body("18.45", mexico_case(), name))
        .status;
  }
  const auto address = n % 10 == 0   ? fail_trigger_address()
                       : n % 10 == 1 ? blocked_trigger_address()
                                     : random_evm_address();
  return create_payout(http, key, idempotency_key, payout_body("0.01", "USDC", "polygon", address))
      .status;
}

bool wait_for_stack(const HttpClient& http) {
  const auto deadline = Clock::now() + std::chrono::minutes(10);
  while (Clock::now() < deadline) {
    try {
      if (http.get("/v1/health").status == 200) return true;
    } catch (const std::exception&) {
      // not up yet
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse(argc, argv);
  if (options.url.empty() || options.ca_path_file.empty()) {
    std::fprintf(stderr,
                 "usage: payrail-soak-load --url URL --ca-path-file FILE [--minutes 10] "
                 "[--rate 10]\n");
    return 2;
  }
  HttpsReceiver receiver;
  std::ofstream(options.ca_path_file) << receiver.certificate_path() << "\n";
  const HttpClient http(options.url);
  if (!wait_for_stack(http)) {
    std::fprintf(stderr, "no stack at %s\n", options.url.c_str());
    return 1;
  }
  std::vector<std::string> keys;
  for (int i = 0; i < options.organizations; ++i) {
    keys.push_back(prepare_organization(http, receiver, i));
  }
  std::map<int, std::atomic<long>> answers;  // status -> count
  for (int status : {0, 201, 202, 403, 429, 500, 503}) answers[status] = 0;
  std::atomic<long> sent{0};
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options.minutes * 60));
  const auto interval = std::chrono::duration<double>(options.threads / options.rate);
  std::vector<std::thread> threads;
  for (int t = 0; t < options.threads; ++t) {
    threads.emplace_back([&, t] {
      auto next =
          start + std::chrono::duration_cast<Clock::duration>(interval * t / options.threads);
      for (long i = 0; next < end; ++i) {
        std::this_thread::sleep_until(next);
        next += std::chrono::duration_cast<Clock::duration>(interval);
        const long n = sent++;
        const auto& key = keys[n % keys.size()];
        int status = 0;
        try {
          status = create(http, key, n);
          if (n % 5 == 0) http.get("/v1/payouts?limit=10", with_key(key));
        } catch (const std::exception&) {
          status = 0;
        }
        ++answers[answers.contains(status) ? status : 500];
      }
    });
  }
  for (int minute = 1; Clock::now() < end; ++minute) {
    std::this_thread::sleep_until(std::min(end, start + std::chrono::minutes(minute)));
    std::printf("soak: %.1f min, %ld payouts sent, %zu webhooks received\n",
                std::chrono::duration<double>(Clock::now() - start).count() / 60, sent.load(),
                receiver.requests().size());
    std::fflush(stdout);
  }
  for (auto& thread : threads) thread.join();
  std::this_thread::sleep_for(std::chrono::seconds(5));  // the last deliveries
  std::printf("soak: done: %ld payouts sent; answers:", sent.load());
  for (const auto& [status, count] : answers) {
    if (count > 0) std::printf(" %d=%ld", status, count.load());
  }
  std::printf("; %zu webhooks received\n", receiver.requests().size());
  return 0;
}
