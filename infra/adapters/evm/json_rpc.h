// A JSON-RPC 2.0 client over HTTP(S) for EVM nodes (libcurl, RapidJSON).
//
// One network has one or more node URLs, tried in turn: a call goes to the endpoint that last
// answered, and on a retryable failure to the next, until each has been tried once. Every call
// has explicit timeouts (connect and total), a bounded response size, no redirects, no proxy
// from the environment, and TLS verification on for https.
//
// Errors are values, classified for the caller:
//   retryable  the node did not judge the request: transport failure, timeout, an HTTP status
//              other than 200 without a JSON-RPC error object, a response too large or not
//              JSON-RPC. The same request may be sent again (a signed transaction: the same
//              bytes), to this endpoint or another.
//   permanent  the node answered with a JSON-RPC error object: its code and message are kept,
//              and rejection() recognises the answers a sender must act on ("nonce too low",
//              "already known", "replacement transaction underpriced"...).
// Node URLs often carry an API key in their path: no message here ever includes a URL, only the
// endpoint's position and host.
#pragma once

#include <rapidjson/document.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra::evm {

enum class RpcFailure {
  transport,           // could not connect, connection broken, TLS failure
  timeout,             // connect or total timeout reached
  http_status,         // an HTTP status other than 200, without a JSON-RPC error object
  response_too_large,  // more than RpcOptions::response_bytes_max
  malformed_response,  // not a JSON-RPC 2.0 response to this request
  rpc_error,           // the node's JSON-RPC error object
};

// What a node's error message means for a transaction sender (eth_sendRawTransaction), as the
// main node implementations word it (geth, erigon, nethermind, besu, reth, anvil).
enum class Rejection {
  none,                     // not a recognised rejection (or not an rpc_error at all)
  nonce_too_low,            // the nonce is used: by this transaction (mined) or another
  already_known,            // this very transaction is already in the node's pool
  replacement_underpriced,  // another transaction holds the nonce and these fees do not beat it
  fee_below_base_fee,       // max fee per gas below the current base fee
  insufficient_funds,       // the sender cannot pay gas * max fee + value
};

Rejection classify_rejection(std::string_view node_message);
std::string_view rejection_name(Rejection rejection);

struct RpcError {
  RpcFailure failure = RpcFailure::transport;
  long code = 0;        // the JSON-RPC error code (rpc_error) or the HTTP status (http_status)
  std::string message;  // the node's message (rpc_error), else what went wrong and where
  std::string data;     // the error object's `data` as JSON text (revert data), if any

  bool retryable() const { return failure != RpcFailure::rpc_error; }
  Rejection rejection() const {
    return failure == RpcFailure::rpc_error ? classify_rejection(message) : Rejection::none;
  }
};

// model::Result's shape with an RpcError: callers need the classification, not an API error.
template <class T>
class [[nodiscard]] RpcResult {
 public:
  RpcResult(T value) : state_(std::move(value)) {}
  RpcResult(RpcError error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &std::get<T>(state_); }
  const T* operator->() const { return &std::get<T>(state_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const RpcError& error() const& { return std::get<RpcError>(state_); }
  RpcError&& error() && { return std::get<RpcError>(std::move(state_)); }

 private:
  std::variant<T, RpcError> state_;
};

// An RpcError as the project's error value: provider_unavailable, the message kept.
model::Error to_model_error(const RpcError& error);

struct RpcOptions {
  long connect_timeout_ms = 3000;
  long timeout_ms = 10000;                           // the whole exchange, connect included
  std::size_t response_bytes_max = 8 * 1024 * 1024;  // a block with its hashes is far smaller
};

class JsonRpcClient {
 public:
  // `urls`: at least one, each http:// or https://; a malformed one is refused by position
  // (its text is not repeated: it may hold a key).
  static model::Result<std::unique_ptr<JsonRpcClient>> create(std::vector<std::string> urls,
                                                              RpcOptions options = {});
  ~JsonRpcClient();
  JsonRpcClient(const JsonRpcClient&) = delete;
  JsonRpcClient& operator=(const JsonRpcClient&) = delete;

  // Calls `method` with `params_json` (a JSON array's text) and returns the response's
  // `result` member (which may be null). Thread-safe: concurrent calls use separate handles.
  RpcResult<rapidjson::Document> call(std::string_view method, std::string_view params_json);

  std::size_t endpoint_count() const { return endpoints_.size(); }

 private:
  struct Endpoint {
    std::string url;
    std::string host;  // what messages name
  };
  JsonRpcClient(std::vector<Endpoint> endpoints, RpcOptions options);
  RpcResult<rapidjson::Document> call_endpoint(std::size_t index, const std::string& body, long id);
  void* take_handle();
  void give_back(void* handle);

  std::vector<Endpoint> endpoints_;
  RpcOptions options_;
  std::atomic<std::size_t> preferred_{0};  // the endpoint that answered last
  std::atomic<long> next_id_{1};
  std::mutex handles_mutex_;
  std::vector<void*> idle_handles_;  // CURL easy handles kept for their connections
};

}  // namespace payrail::infra::evm
