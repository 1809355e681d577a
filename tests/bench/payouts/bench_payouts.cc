// payrail-bench-payouts: creates N payouts over HTTP at a fixed concurrency against a running
// stack, then measures how long each took to reach `completed` (from Postgres timestamps).
// With --fiat 1 it creates fiat payouts instead (MXN to a CLABE through the simulated partner).
// Prints figures; asserts nothing. Driven by tests/bench/payouts/run.
#include <curl/curl.h>
#include <pqxx/pqxx>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string url = "http://127.0.0.1:8080";
  std::string database_url;
  std::vector<std::string> keys;
  int count = 2000;
  int concurrency = 16;
  bool fiat = false;
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
// check digit (weights 3, 7, 1; each product mod 10).
std::string random_clabe(std::mt19937_64& random) {
  std::string clabe;
  int sum = 0;
  for (int i = 0; i < 17; ++i) {
    const int digit = static_cast<int>(random() % 10);
    clabe += static_cast<char>('0' + digit);
    sum += digit * std::array{3, 7, 1}[static_cast<std::size_t>(i % 3)] % 10;
  }
  return clabe + static_cast<char>('0' + (10 - sum % 10) % 10);
}

std::string body_of(const Options& options, std::mt19937_64& random) {
  if (options.fiat) {
    return R"({"amount":"10.00","currency":"MXN","country":"MX","beneficiary":{"name":)"
           R"("Bench Beneficiary","account":{"type":"clabe","clabe":")" +
           random_clabe(random) + R"("}}})";
  }
  return R"({"amount":"0.01","currency":"USDC","destination":{"network":"polygon","address":")" +
         random_address(random) + R"("}})";
}

Sample create_one(CURL* curl, const Options& options, int index, std::mt19937_64& random) {
  const auto& key = options.keys[static_cast<std::size_t>(index) % options.keys.size()];
  const std::string body = body_of(options, random);
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
  const auto started = std::chrono::steady_clock::now();
  const auto code = curl_easy_perform(curl);
  Sample sample;
  sample.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &sample.status);
  if (code != CURLE_OK) sample.status = -1;
  const std::string prefix = options.fiat ? "fpo_" : "po_";
  const auto id_at = response.find("\"id\":\"" + prefix);
  if (id_at != std::string::npos) sample.payout_id = response.substr(id_at + 6, prefix.size() + 24);
  curl_slist_free_all(headers);
  return sample;
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1));
  return values[index];
}

std::vector<double> completion_latencies_ms(const Options& options,
                                            const std::vector<std::string>& ids) {
  pqxx::connection connection(options.database_url);
  std::string array = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) array += (i ? "," : "") + ids[i];
  array += "}";
  std::vector<double> latencies;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  for (;;) {
    pqxx::nontransaction tx(connection);
    const auto rows = tx.exec_params(
        options.fiat
            ? "SELECT extract(epoch FROM (t.occurred_at - p.created_at)) * 1000 FROM fiat_payouts "
              "p "
              "JOIN resource_transitions t ON t.resource_id = p.id AND t.to_status = 'completed' "
              "WHERE p.id = ANY($1::text[])"
            : "SELECT extract(epoch FROM (t.occurred_at - p.created_at)) * 1000 FROM payouts p "
              "JOIN payout_transitions t ON t.payout_id = p.id AND t.to_status = 'completed' "
              "WHERE p.id = ANY($1::text[])",
        array);
    if (rows.size() == ids.size() || std::chrono::steady_clock::now() > deadline) {
      for (const auto& row : rows) latencies.push_back(row[0].as<double>());
      return latencies;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
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
    if (name == "--fiat") options.fiat = value == "1";
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse(argc, argv);
  if (options.keys.empty() || options.database_url.empty()) {
    std::fprintf(stderr,
                 "usage: payrail-bench-payouts --keys k1,k2 --database-url URL "
                 "[--url http://127.0.0.1:8080] [--count 2000] [--concurrency 16] [--fiat 1]\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_ALL);
  std::vector<Sample> samples(static_cast<std::size_t>(options.count));
  std::atomic<int> next{0};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < options.concurrency; ++t) {
    threads.emplace_back([&, t] {
      CURL* curl = curl_easy_init();  // one connection per client, kept alive
      std::mt19937_64 random(static_cast<unsigned long>(t) * 7919 + 17);
      for (int i = next++; i < options.count; i = next++) {
        samples[static_cast<std::size_t>(i)] = create_one(curl, options, i, random);
      }
      curl_easy_cleanup(curl);
    });
  }
  for (auto& thread : threads) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::map<long, int> statuses;
  std::vector<double> create_ms;
  std::vector<std::string> ids;
  for (const auto& sample : samples) {
    ++statuses[sample.status];
    create_ms.push_back(sample.latency_ms);
    if (sample.status == 201 && !sample.payout_id.empty()) ids.push_back(sample.payout_id);
  }
  const auto completion_ms = completion_latencies_ms(options, ids);
  std::printf("%s created: %d at concurrency %d in %.2f s\n",
              options.fiat ? "fiat payouts" : "payouts", options.count, options.concurrency,
              seconds);
  for (const auto& [status, count] : statuses) std::printf("  HTTP %ld: %d\n", status, count);
  std::printf("creates/s:              %.1f\n", static_cast<double>(options.count) / seconds);
  std::printf("create latency p50/p99: %.1f / %.1f ms\n", percentile(create_ms, 0.50),
              percentile(create_ms, 0.99));
  std::printf("create -> completed:    %zu of %zu completed; p50/p99 %.1f / %.1f ms\n",
              completion_ms.size(), ids.size(), percentile(completion_ms, 0.50),
              percentile(completion_ms, 0.99));
  std::printf("CREATES_PER_SECOND=%.1f\n", static_cast<double>(options.count) / seconds);
  return 0;
}
