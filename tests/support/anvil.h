// A real EVM node for tests: anvil (Foundry) from the npm package that infra/test installs
// (infra/adapters/evm/node). It listens on 127.0.0.1 only, on a free port, with the chain id
// asked for, mines each transaction at once by default (or every `block_time_seconds`), and is
// stopped when the object goes away. Its ten dev accounts hold 10000 ETH each and their keys
// are public (kDevKeys): test funds only.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "infra/adapters/evm/node.h"
#include "infra/adapters/evm/signer.h"
#include "tests/support/process.h"

namespace payrail::testing {

// The private keys of anvil's dev accounts 0 and 1 (the well-known test mnemonic).
inline constexpr std::string_view kAnvilKey0 =
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
inline constexpr std::string_view kAnvilKey1 =
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

// PAYRAIL_ANVIL when set, else the binary of the npm package for this machine's platform.
std::string anvil_binary();

class Anvil {
 public:
  struct Options {
    std::uint64_t chain_id = 31337;
    int block_time_seconds = 0;  // 0: a block per transaction (automine)
  };
  explicit Anvil(Options options);
  Anvil() : Anvil(Options{}) {}
  ~Anvil();

  const std::string& url() const { return url_; }
  std::uint64_t chain_id() const { return options_.chain_id; }
  int port() const { return port_; }
  // A client of its own for each caller (nodes are cheap).
  std::unique_ptr<infra::evm::Node> node(infra::evm::RpcOptions options = {}) const;
  static std::unique_ptr<infra::evm::LocalKeySigner> signer(std::string_view key_hex);

  // A raw call; a JSON-RPC error fails the calling test (ADD_FAILURE) and returns null.
  rapidjson::Document call(std::string_view method, std::string_view params_json) const;

  // Mining: automine on or off (evm_setAutomine), a block every `seconds` (0 stops interval
  // mining), or `blocks` blocks now.
  void set_automine(bool enabled) const;
  void set_interval_mining(int seconds) const;
  void mine(int blocks = 1) const;
  // State: a snapshot's id, and back to it (the blocks after it are gone).
  std::string snapshot() const;
  bool revert(const std::string& snapshot_id) const;
  // Replaces the last `depth` blocks with empty ones: their transactions are no longer mined.
  void reorg(int depth) const;
  void set_balance(const infra::evm::Address& account, const infra::evm::U256& wei) const;

  // Stops the node (a node that is down), and starts it again on the same port (a new chain).
  void stop();
  void start();
  const ChildProcess& process() const { return process_; }

 private:
  void wait_until_answering();
  Options options_;
  int port_;
  std::string url_;
  ChildProcess process_;
};

}  // namespace payrail::testing
