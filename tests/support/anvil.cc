#include "tests/support/anvil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "schemas/model/common/source_tree.h"

namespace payrail::testing {
namespace {

namespace evm = infra::evm;

constexpr auto kStartTimeout = std::chrono::seconds(30);

std::string platform_package() {
#if defined(__aarch64__)
  return "anvil-linux-arm64";
#else
  return "anvil-linux-amd64";
#endif
}

}  // namespace

std::string anvil_binary() {
  if (const char* configured = std::getenv("PAYRAIL_ANVIL")) return configured;
  const auto path = std::filesystem::path(std::string(model::source_directory())) /
                    "infra/adapters/evm/node/node_modules/@foundry-rs" / platform_package() /
                    "bin/anvil";
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error("anvil is not installed at " + path.string() +
                             " (infra/test installs it: npm ci in infra/adapters/evm/node)");
  }
  return path.string();
}

Anvil::Anvil(Options options)
    : options_(options),
      port_(free_port()),
      url_("http://127.0.0.1:" + std::to_string(port_)),
      process_("anvil-" + std::to_string(port_), anvil_binary(), {}, [&] {
        std::vector<std::string> arguments = {"--host",     "127.0.0.1",
                                              "--port",     std::to_string(port_),
                                              "--chain-id", std::to_string(options.chain_id),
                                              "--color",    "never"};
        if (options.block_time_seconds > 0) {
          arguments.insert(arguments.end(),
                           {"--block-time", std::to_string(options.block_time_seconds)});
        }
        return arguments;
      }()) {
  start();
}

Anvil::~Anvil() {
  stop();
}

void Anvil::start() {
  process_.start();
  if (!process_.wait_for_log("Listening on 127.0.0.1:" + std::to_string(port_), kStartTimeout)) {
    throw std::runtime_error("anvil did not start; its log: " + process_.log_path());
  }
  wait_until_answering();
}

void Anvil::stop() {
  process_.stop(SIGTERM, std::chrono::seconds(5));
}

void Anvil::wait_until_answering() {
  const auto client = node();
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto chain_id = client->chain_id();
    if (chain_id.ok() && *chain_id == options_.chain_id) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("anvil does not answer eth_chainId; its log: " + process_.log_path());
}

std::unique_ptr<evm::Node> Anvil::node(evm::RpcOptions options) const {
  auto client = evm::JsonRpcClient::create({url_}, options);
  if (!client.ok()) throw std::runtime_error(client.error().message);
  return std::make_unique<evm::Node>(std::move(client).value());
}

std::unique_ptr<evm::LocalKeySigner> Anvil::signer(std::string_view key_hex) {
  auto signer = evm::LocalKeySigner::from_bytes(evm::from_hex(key_hex).value());
  if (!signer.ok()) throw std::runtime_error(signer.error().message);
  return std::move(signer).value();
}

rapidjson::Document Anvil::call(std::string_view method, std::string_view params_json) const {
  auto answer = node()->client().call(method, params_json);
  if (!answer.ok()) {
    ADD_FAILURE() << method << ": " << answer.error().message;
    return rapidjson::Document();
  }
  return std::move(answer).value();
}

void Anvil::set_automine(bool enabled) const {
  call("evm_setAutomine", enabled ? "[true]" : "[false]");
}

void Anvil::set_interval_mining(int seconds) const {
  call("anvil_setIntervalMining", "[" + std::to_string(seconds) + "]");
}

void Anvil::mine(int blocks) const {
  call("anvil_mine", "[\"" + evm::block_tag(static_cast<std::uint64_t>(blocks)) + "\"]");
}

std::string Anvil::snapshot() const {
  const auto id = call("evm_snapshot", "[]");
  return id.IsString() ? id.GetString() : "";
}

bool Anvil::revert(const std::string& snapshot_id) const {
  const auto reverted = call("evm_revert", "[\"" + snapshot_id + "\"]");
  return reverted.IsBool() && reverted.GetBool();
}

void Anvil::reorg(int depth) const {
  call("anvil_reorg", "[" + std::to_string(depth) + ", []]");
}

void Anvil::set_balance(const evm::Address& account, const evm::U256& wei) const {
  call("anvil_setBalance", "[\"" + account.lowercase() + "\", \"" + wei.to_quantity() + "\"]");
}

}  // namespace payrail::testing
