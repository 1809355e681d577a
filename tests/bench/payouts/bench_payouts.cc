// payrail-bench-payouts: creates N payouts over HTTP against a running stack, either closed-loop
// (a fixed number of clients, each sending its next create when the last one answered: the peak)
// or open-loop (--rate: creates start at a fixed arrival rate whatever the answers do, and each
// latency counts from the scheduled start, so queueing is measured rather than hidden). Then it
// measures how long each payout took to reach `approved`, `processing` and `completed` (Postgres
// timestamps), and the CPU seconds and resident memory of every process of the stack (--processes,
// plus the PostgreSQL backends). With --fiat 1 it creates fiat payouts instead (MXN to a CLABE
// through the simulated partner). With --networks the stablecoin payouts go round-robin to those
// networks; with --end-to-end 1 it also prints payouts/s from the first create to the last
// `completed` and the create and create -> completed percentiles as NAME=value lines (the --live
// run prints them for live and test mode side by side). --sign-benchmark K only times K EIP-1559
// token transfers signed by the project's signer (infra/adapters/evm) and prints the CPU per
// signature. Prints figures; asserts nothing. Driven by tests/bench/payouts/run.
#include <curl/curl.h>
#include <pqxx/pqxx>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "infra/adapters/evm/transaction.h"
#include "tests/bench/payouts/process_sampler.h"
#include "tests/support/bench.h"

namespace {

struct Options {
  std::string url = "http://127.0.0.1:8080";
  std::string database_url;
  std::vector<std::string> keys;
  int count = 2000;
  int concurrency = 16;
  double rate_per_second = 0;  // 0: closed loop
  int warmup_count = 0;        // creates sent the same way first, not measured
  bool fiat = false;
  std::vector<std::string> networks = {"polygon"};  // stablecoin payouts go round-robin to these
  bool end_to_end = false;                          // print the NAME=value end-to-end figures
  int sign_benchmark_count = 0;                     // > 0: only time the signer, this many times
  std::vector<payrail::bench::NamedProcess> processes;
};

struct Sample {
  double latency_ms = 0;
  long status = 0;
  std::string payout_id;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

size_t collect(char* data, size_t size, size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

std::string random_address(std::mt19937_64& random) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string address = "0x";
  for (int i = 0; i < 40; ++i) address += kHex[random() % 16];
  return address;
}

// A valid CLABE (SPEI, Mexico) that is not the catalog's example: 17 random digits and the
// check digit (weights 3, 7, 1; each product mod 10). The bank code and the account are never all
// zeros (no issuer assigns them: the API refuses them), so the first and the last digits drawn are
// 1 to 9.
std::string random_clabe(std::mt19937_64& random) {
  std::string clabe;
  int sum = 0;
  for (int i = 0; i < 17; ++i) {
    const bool nonzero = i == 0 || i == 16;
    const int digit =
        nonzero ? 1 + static_cast<int>(random() % 9) : static_cast<int>(random() % 10);
    clabe += static_cast<char>('0' + digit);
    sum += digit * std::array{3, 7, 1}[static_cast<std::size_t>(i % 3)] % 10;
  }
  return clabe + static_cast<char>('0' + (10 - sum % 10) % 10);
}

std::string body_of(const Options& options, int index, std::mt19937_64& random) {
  if (options.fiat) {
    return R"({"amount":"10.00","currency":"MXN","country":"MX","beneficiary":{"name":)"
           R"("Bench Beneficiary","account":{"type":"clabe","clabe":")" +
           random_clabe(random) + R"("}}})";
  }
  const auto& network = options.networks[static_cast<std::size_t>(index) % options.networks.size()];
  return R"({"amount":"0.01","currency":"USDC","destination":{"network":")" + network +
         R"(","address":")" + random_address(random) + R"("}})";
}

// `due` is when the create was meant to start: its latency counts from there.
Sample create_one(CURL* curl, const Options& options, int index, std::mt19937_64& random,
                  std::chrono::steady_clock::time_point due) {
  const auto& key = options.keys[static_cast<std::size_t>(index) % options.keys.size()];
  const std::string body = body_of(options, index, random);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, ("X-API-Key: " + key).c_str());
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(
      headers,
      ("Idempotency-Key: bench-" + std::to_string(random()) + "-" + std::to_string(index)).c_str());
  std::string response;
  const auto url = options.url + (options.fiat ? "/v1/fiat-payouts" : "/v1/payouts");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  const auto code = curl_easy_perform(curl);
  Sample sample;
  sample.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - due).count();
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &sample.status);
  if (code != CURLE_OK) sample.status = -1;
  const std::string prefix = options.fiat ? "fpo_" : "po_";
  const auto id_at = response.find("\"id\":\"" + prefix);
  if (id_at != std::string::npos) sample.payout_id = response.substr(id_at + 6, prefix.size() + 24);
  curl_slist_free_all(headers);
  return sample;
}

using payrail::testing::percentile;  // one definition for every benchmark

void print_distribution(const char* name, const std::vector<double>& values, std::size_t of) {
  std::printf("  %-22s %6zu of %-6zu p50 %8.1f  p90 %8.1f  p99 %8.1f  max %8.1f ms\n", name,
              values.size(), of, percentile(values, 0.50), percentile(values, 0.90),
              percentile(values, 0.99), percentile(values, 1.0));
}

std::string text_array(const std::vector<std::string>& ids) {
  std::string array = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) array += (i ? "," : "") + ids[i];
  return array + "}";
}

// Milliseconds from each payout's creation to its first transition into `stage`.
std::vector<double> stage_latencies_ms(pqxx::connection& connection, const Options& options,
                                       const std::string& ids, const std::string& stage) {
  pqxx::nontransaction tx(connection);
  const auto rows = tx.exec_params(
      options.fiat
          ? "SELECT extract(epoch FROM (min(t.occurred_at) - p.created_at)) * 1000 "
            "FROM fiat_payouts p JOIN resource_transitions t ON t.resource_id = p.id "
            "AND t.to_status = $2 WHERE p.id = ANY($1::text[]) GROUP BY p.id, p.created_at"
          : "SELECT extract(epoch FROM (min(t.occurred_at) - p.created_at)) * 1000 "
            "FROM payouts p JOIN resource_transitions t ON t.resource_id = p.id "
            "AND t.to_status = $2 WHERE p.id = ANY($1::text[]) GROUP BY p.id, p.created_at",
      ids, stage);
  std::vector<double> latencies;
  for (const auto& row : rows) latencies.push_back(row[0].as<double>());
  return latencies;
}

// Waits (at most 180 s) until every created payout is `completed` (or `failed`: a live transfer
// can revert, and it will not complete by waiting).
void await_completion(pqxx::connection& connection, const Options& options, const std::string& ids,
                      std::size_t expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (std::chrono::steady_clock::now() < deadline) {
    pqxx::nontransaction tx(connection);
    const auto done =
        tx.exec_params1(options.fiat
                            ? "SELECT count(*) FROM fiat_payouts WHERE id = ANY($1::text[]) "
                              "AND status IN ('completed', 'failed')"
                            : "SELECT count(*) FROM payouts WHERE id = ANY($1::text[]) "
                              "AND status IN ('completed', 'failed')",
                        ids)[0]
            .as<std::size_t>();
    if (done >= expected) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::vector<payrail::bench::NamedProcess> parse_processes(const std::string& text) {
  std::vector<payrail::bench::NamedProcess> processes;
  for (const auto& entry : split(text, ',')) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos) continue;
    processes.push_back({entry.substr(0, equals), std::stoi(entry.substr(equals + 1))});
  }
  return processes;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--url") options.url = value;
    if (name == "--database-url") options.database_url = value;
    if (name == "--keys") options.keys = split(value, ',');
    if (name == "--count") options.count = std::stoi(value);
    if (name == "--concurrency") options.concurrency = std::stoi(value);
    if (name == "--rate") options.rate_per_second = std::stod(value);
    if (name == "--warmup") options.warmup_count = std::stoi(value);
    if (name == "--fiat") options.fiat = value == "1";
    if (name == "--processes") options.processes = parse_processes(value);
    if (name == "--networks") options.networks = split(value, ',');
    if (name == "--end-to-end") options.end_to_end = value == "1";
    if (name == "--sign-benchmark") options.sign_benchmark_count = std::stoi(value);
  }
  return options;
}

// Closed loop: each client sends its next create as soon as the last one answered. Open loop
// (rate > 0): create i is due at start + i / rate; a client that is free sleeps until the next
// due create, so too few clients show as latency rather than as a lower offered rate.
// Create i is sent as create `first + i`: its organization and its Idempotency-Key, which must
// differ between the warm-up and the measured run (the same key would be replayed, not created).
std::vector<Sample> create_all(const Options& options, int first, int count, double& seconds,
                               double& worst_lag_ms) {
  std::vector<Sample> samples(static_cast<std::size_t>(count));
  std::vector<double> lags_ms(static_cast<std::size_t>(count), 0);
  std::atomic<int> next{0};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < options.concurrency; ++t) {
    threads.emplace_back([&, t] {
      CURL* curl = curl_easy_init();  // one connection per client, kept alive
      std::mt19937_64 random(static_cast<unsigned long>(t) * 7919 + 17);
      for (int i = next++; i < count; i = next++) {
        auto due = std::chrono::steady_clock::now();
        if (options.rate_per_second > 0) {
          due = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(i / options.rate_per_second));
          std::this_thread::sleep_until(due);
          lags_ms[static_cast<std::size_t>(i)] =
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - due)
                  .count();
        }
        samples[static_cast<std::size_t>(i)] = create_one(curl, options, first + i, random, due);
      }
      curl_easy_cleanup(curl);
    });
  }
  for (auto& thread : threads) thread.join();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  worst_lag_ms = *std::max_element(lags_ms.begin(), lags_ms.end());
  return samples;
}

// The stack's first second after a start is slower than the rest (new connections, cold caches:
// create p99 500 ms against 80 ms at 80/s once warm), which is not the sustained rate: the
// warm-up sends creates the same way first, waits until they completed, and prints their
// figures apart so the cold start stays visible.
void warm_up(pqxx::connection& connection, const Options& options, const char* kind) {
  double seconds = 0;
  double worst_lag_ms = 0;
  const auto samples = create_all(options, 0, options.warmup_count, seconds, worst_lag_ms);
  std::vector<double> create_ms;
  std::vector<std::string> ids;
  for (const auto& sample : samples) {
    create_ms.push_back(sample.latency_ms);
    if (sample.status == 201 && !sample.payout_id.empty()) ids.push_back(sample.payout_id);
  }
  await_completion(connection, options, text_array(ids), ids.size());
  std::printf("warm-up (not measured): %d %s in %.2f s, %zu created\n", options.warmup_count, kind,
              seconds, ids.size());
  print_distribution("create", create_ms, samples.size());
}

double thread_cpu_us() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

// The CPU the execution worker spends signing one live payout: evm::sign of an ERC-20 transfer of
// the shape it signs (EIP-1559, USDC's transfer(recipient, 0.01), a token's gas limit): the
// digest, the secp256k1 signature, the recovery check and the raw bytes with their hash. Also
// the secp256k1 signature alone. Thread CPU time, one thread; each nonce differs so each
// signature is new.
int sign_benchmark(int count) {
  namespace evm = payrail::infra::evm;
  // anvil's first dev account: a published test key, never a hot wallet's.
  const auto key =
      evm::from_hex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
  auto signer = evm::LocalKeySigner::from_bytes(*key);
  if (!signer.ok()) {
    std::fprintf(stderr, "signer: %s\n", signer.error().message.c_str());
    return 1;
  }
  const auto token = *evm::parse_address("0x3c499c542cef5e3811e1192ce70d8cc03d5c3359");
  const auto recipient = *evm::parse_address("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
  const evm::Fees fees{evm::U256(30'000'000'000), evm::U256(90'000'000'000)};
  unsigned checksum = 0;  // uses every result, so no signature is optimized away
  const double transaction_started_us = thread_cpu_us();
  for (int i = 0; i < count; ++i) {
    const auto transaction = evm::token_transfer(137, static_cast<std::uint64_t>(i), fees, 100000,
                                                 token, recipient, evm::U256(10000));
    auto signed_transaction = evm::sign(transaction, **signer);
    if (!signed_transaction.ok()) {
      std::fprintf(stderr, "sign: %s\n", signed_transaction.error().message.c_str());
      return 1;
    }
    checksum += signed_transaction->hash[0];
  }
  const double transaction_us = (thread_cpu_us() - transaction_started_us) / count;
  const double digest_started_us = thread_cpu_us();
  for (int i = 0; i < count; ++i) {
    evm::Hash digest{};
    digest[0] = static_cast<std::uint8_t>(i);
    digest[1] = static_cast<std::uint8_t>(i >> 8);
    digest[2] = static_cast<std::uint8_t>(i >> 16);
    auto signature = (*signer)->sign(digest);
    if (!signature.ok()) return 1;
    checksum += signature->r[0];
  }
  const double signature_us = (thread_cpu_us() - digest_started_us) / count;
  std::printf("signing, %d times on one thread (CPU time; checksum %u):\n", count, checksum % 10);
  std::printf(
      "  EIP-1559 USDC transfer, evm::sign (digest, signature, recovery check, raw, hash): "
      "%.1f us\n",
      transaction_us);
  std::printf("  secp256k1 recoverable signature of a digest alone: %.1f us\n", signature_us);
  std::printf("SIGN_US_PER_PAYOUT=%.1f\n", transaction_us);
  std::printf("SECP256K1_SIGN_US=%.1f\n", signature_us);
  return 0;
}

// Payouts/s end to end: the `completed` payouts over the time from the first create's start to
// the last one's `completed` (Postgres timestamps; same machine, same clock).
void print_end_to_end(pqxx::connection& connection, const std::string& ids,
                      std::chrono::system_clock::time_point started,
                      const std::vector<double>& create_ms,
                      const std::vector<double>& completed_ms) {
  pqxx::nontransaction tx(connection);
  const auto row = tx.exec_params1(
      "SELECT count(*) FILTER (WHERE status = 'completed'), "
      "count(*) FILTER (WHERE status = 'failed'), "
      "(SELECT extract(epoch FROM max(occurred_at)) FROM resource_transitions "
      " WHERE resource_id = ANY($1::text[]) AND to_status = 'completed') "
      "FROM payouts WHERE id = ANY($1::text[])",
      ids);
  const auto completed = row[0].as<long>();
  const double started_s = std::chrono::duration<double>(started.time_since_epoch()).count();
  const double seconds = row[2].is_null() ? 0 : row[2].as<double>() - started_s;
  std::printf(
      "end to end: %ld completed, %ld failed, the last completed %.2f s after the first "
      "create\n",
      completed, row[1].as<long>(), seconds);
  std::printf("PAYOUTS_COMPLETED=%ld\n", completed);
  std::printf("PAYOUTS_FAILED=%ld\n", row[1].as<long>());
  std::printf("PAYOUTS_PER_SECOND=%.1f\n", seconds > 0 ? completed / seconds : 0);
  std::printf("CREATE_P50_MS=%.1f\n", percentile(create_ms, 0.50));
  std::printf("CREATE_P99_MS=%.1f\n", percentile(create_ms, 0.99));
  std::printf("COMPLETED_P50_MS=%.1f\n", percentile(completed_ms, 0.50));
  std::printf("COMPLETED_P99_MS=%.1f\n", percentile(completed_ms, 0.99));
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse(argc, argv);
  if (options.sign_benchmark_count > 0) return sign_benchmark(options.sign_benchmark_count);
  if (options.keys.empty() || options.database_url.empty() || options.count < 1) {
    std::fprintf(stderr,
                 "usage: payrail-bench-payouts --keys k1,k2 --database-url URL "
                 "[--url http://127.0.0.1:8080] [--count 2000] [--concurrency 16] [--rate N] "
                 "[--warmup N] [--fiat 1] [--networks polygon,base] [--end-to-end 1] "
                 "[--processes name=pid,name=pid]\n"
                 "       payrail-bench-payouts --sign-benchmark K\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_ALL);
  const auto database_url = options.database_url +
                            (options.database_url.find('?') == std::string::npos ? "?" : "&") +
                            "application_name=payrail-bench";
  pqxx::connection connection(database_url);
  const char* kind = options.fiat ? "fiat payouts" : "payouts";
  if (options.warmup_count > 0) warm_up(connection, options, kind);
  payrail::bench::ProcessSampler sampler(options.processes, database_url);
  sampler.start();
  double seconds = 0;
  double worst_lag_ms = 0;
  const auto started = std::chrono::system_clock::now();
  const auto samples =
      create_all(options, options.warmup_count, options.count, seconds, worst_lag_ms);
  std::map<long, int> statuses;
  std::vector<double> create_ms;
  std::vector<std::string> ids;
  for (const auto& sample : samples) {
    ++statuses[sample.status];
    create_ms.push_back(sample.latency_ms);
    if (sample.status == 201 && !sample.payout_id.empty()) ids.push_back(sample.payout_id);
  }
  const auto id_array = text_array(ids);
  await_completion(connection, options, id_array, ids.size());
  const auto cpu = sampler.stop();
  if (options.rate_per_second > 0) {
    std::printf(
        "%s created: %d open-loop at %.1f/s offered (up to %d in flight) in %.2f s; "
        "latest start %.1f ms after its due time\n",
        kind, options.count, options.rate_per_second, options.concurrency, seconds, worst_lag_ms);
  } else {
    std::printf("%s created: %d closed-loop at concurrency %d in %.2f s\n", kind, options.count,
                options.concurrency, seconds);
  }
  for (const auto& [status, count] : statuses) std::printf("  HTTP %ld: %d\n", status, count);
  std::printf("creates/s:              %.1f\n", static_cast<double>(options.count) / seconds);
  std::printf("latency (create: client-side, from its due time; stages: Postgres timestamps):\n");
  print_distribution("create", create_ms, samples.size());
  std::vector<double> completed_ms;
  for (const auto* stage : {"approved", "processing", "completed"}) {
    auto latencies_ms = stage_latencies_ms(connection, options, id_array, stage);
    print_distribution((std::string("create -> ") + stage).c_str(), latencies_ms, ids.size());
    if (std::string(stage) == "completed") completed_ms = std::move(latencies_ms);
  }
  payrail::bench::print_cpu_report(cpu, static_cast<int>(ids.size()));
  if (options.end_to_end && !options.fiat) {
    print_end_to_end(connection, id_array, started, create_ms, completed_ms);
  }
  std::printf("CREATES_PER_SECOND=%.1f\n", static_cast<double>(options.count) / seconds);
  return 0;
}
