#include "infra/adapters/evm/json_rpc.h"

#include <curl/curl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "schemas/model/common/json.h"

namespace payrail::infra::evm {
namespace {

// Deeper responses are refused before parsing: no node answer we read nests more than a few.
constexpr std::size_t kResponseDepthMax = 64;

struct Pattern {
  std::string_view text;  // lowercase
  Rejection rejection;
};

// Substrings of the main implementations' messages, lowercased. Order matters only where one
// message could contain two (none do today).
constexpr std::array kRejectionPatterns = {
    Pattern{"already known", Rejection::already_known},      // geth, erigon, reth
    Pattern{"already imported", Rejection::already_known},   // anvil
    Pattern{"alreadyknown", Rejection::already_known},       // nethermind
    Pattern{"known transaction", Rejection::already_known},  // besu, older geth
    Pattern{"nonce too low", Rejection::nonce_too_low},      // geth, erigon, reth, anvil
    Pattern{"nonce is too low", Rejection::nonce_too_low},   // some providers
    Pattern{"oldnonce", Rejection::nonce_too_low},           // nethermind
    Pattern{"nonce_too_low", Rejection::nonce_too_low},      // besu
    Pattern{"replacement transaction underpriced", Rejection::replacement_underpriced},
    Pattern{"replacement_underpriced", Rejection::replacement_underpriced},  // besu
    Pattern{"replacement underpriced", Rejection::replacement_underpriced},
    Pattern{"less than block base fee", Rejection::fee_below_base_fee},  // geth, anvil
    Pattern{"feetoolow", Rejection::fee_below_base_fee},                 // nethermind
    Pattern{"insufficient funds", Rejection::insufficient_funds},
};

std::string lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

RpcError failure(RpcFailure kind, std::string message, long code = 0) {
  return RpcError{kind, code, std::move(message), {}};
}

std::size_t collect_body(char* data, std::size_t size, std::size_t count, void* sink) {
  auto& response = *static_cast<std::pair<std::string, std::size_t>*>(sink);
  const std::size_t chunk = size * count;
  if (response.first.size() + chunk > response.second) return 0;  // stops the transfer
  response.first.append(data, chunk);
  return chunk;
}

std::string transport_text(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "could not resolve the host";
    case CURLE_COULDNT_CONNECT:
      return "could not connect";
    case CURLE_PEER_FAILED_VERIFICATION:
      return "TLS certificate verification failed";
    case CURLE_SSL_CONNECT_ERROR:
      return "TLS handshake failed";
    case CURLE_GOT_NOTHING:
      return "empty reply";
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
      return "connection broken during the exchange";
    default:
      return curl_easy_strerror(code);
  }
}

// The request's text: params go in as given (a JSON array).
std::string request_body(std::string_view method, std::string_view params_json, long id) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("jsonrpc");
  writer.String("2.0");
  writer.Key("id");
  writer.Int64(id);
  writer.Key("method");
  writer.String(method.data(), static_cast<rapidjson::SizeType>(method.size()));
  writer.Key("params");
  writer.RawValue(params_json.data(), params_json.size(), rapidjson::kArrayType);
  writer.EndObject();
  return buffer.GetString();
}

// The node's error object, kept whole: code, message and data.
RpcError rpc_error_of(const rapidjson::Value& error) {
  RpcError result{RpcFailure::rpc_error, 0, "the node answered an error without a message", {}};
  if (const auto* code = model::json::member(error, "code"); code && code->IsInt64()) {
    result.code = static_cast<long>(code->GetInt64());
  }
  if (const auto message = model::json::string_member(error, "message")) {
    result.message = std::string(*message);
  }
  if (const auto* data = model::json::member(error, "data")) {
    result.data = model::json::serialize(*data);
  }
  return result;
}

void initialize_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The scheme and host of `url`, or nullopt when libcurl cannot parse it or it is not http(s).
std::optional<std::string> host_of(const std::string& url) {
  CURLU* parsed = curl_url();
  std::optional<std::string> host;
  char* scheme = nullptr;
  char* name = nullptr;
  if (curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK &&
      curl_url_get(parsed, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
      curl_url_get(parsed, CURLUPART_HOST, &name, 0) == CURLUE_OK &&
      (std::string_view(scheme) == "http" || std::string_view(scheme) == "https")) {
    host = name;
  }
  curl_free(scheme);
  curl_free(name);
  curl_url_cleanup(parsed);
  return host;
}

}  // namespace

Rejection classify_rejection(std::string_view node_message) {
  const std::string lower = lowercase(node_message);
  for (const auto& pattern : kRejectionPatterns) {
    if (lower.find(pattern.text) != std::string::npos) return pattern.rejection;
  }
  return Rejection::none;
}

std::string_view rejection_name(Rejection rejection) {
  switch (rejection) {
    case Rejection::none:
      return "none";
    case Rejection::nonce_too_low:
      return "nonce_too_low";
    case Rejection::already_known:
      return "already_known";
    case Rejection::replacement_underpriced:
      return "replacement_underpriced";
    case Rejection::fee_below_base_fee:
      return "fee_below_base_fee";
    case Rejection::insufficient_funds:
      return "insufficient_funds";
  }
  return "none";
}

model::Error to_model_error(const RpcError& error) {
  return model::Error::make(model::ErrorCode::provider_unavailable, "EVM node: " + error.message);
}

model::Result<std::unique_ptr<JsonRpcClient>> JsonRpcClient::create(std::vector<std::string> urls,
                                                                    RpcOptions options) {
  if (urls.empty()) {
    return model::Error::make(model::ErrorCode::internal_error, "no JSON-RPC URL is configured");
  }
  std::vector<Endpoint> endpoints;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    const auto host = host_of(urls[i]);
    if (!host) {
      return model::Error::make(
          model::ErrorCode::internal_error,
          "JSON-RPC URL " + std::to_string(i + 1) + " is not an http:// or https:// URL");
    }
    endpoints.push_back({std::move(urls[i]), *host});
  }
  initialize_curl();
  return std::unique_ptr<JsonRpcClient>(new JsonRpcClient(std::move(endpoints), options));
}

JsonRpcClient::JsonRpcClient(std::vector<Endpoint> endpoints, RpcOptions options)
    : endpoints_(std::move(endpoints)), options_(options) {}

JsonRpcClient::~JsonRpcClient() {
  for (void* handle : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* JsonRpcClient::take_handle() {
  {
    std::lock_guard lock(handles_mutex_);
    if (!idle_handles_.empty()) {
      void* handle = idle_handles_.back();
      idle_handles_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void JsonRpcClient::give_back(void* handle) {
  std::lock_guard lock(handles_mutex_);
  idle_handles_.push_back(handle);
}

RpcResult<rapidjson::Document> JsonRpcClient::call(std::string_view method,
                                                   std::string_view params_json) {
  const long id = next_id_++;
  const std::string body = request_body(method, params_json, id);
  const std::size_t start = preferred_.load();
  std::optional<RpcError> last;
  for (std::size_t attempt = 0; attempt < endpoints_.size(); ++attempt) {
    const std::size_t index = (start + attempt) % endpoints_.size();
    auto result = call_endpoint(index, body, id);
    if (result.ok() || !result.error().retryable()) {
      preferred_.store(index);
      return result;
    }
    last = std::move(result).error();
  }
  if (endpoints_.size() > 1) {
    last->message = "every endpoint failed; the last: " + last->message;
  }
  return *last;
}

RpcResult<rapidjson::Document> JsonRpcClient::call_endpoint(std::size_t index,
                                                            const std::string& body, long id) {
  const std::string where = "endpoint " + std::to_string(index + 1) + " of " +
                            std::to_string(endpoints_.size()) + " (" + endpoints_[index].host +
                            "): ";
  auto* curl = static_cast<CURL*>(take_handle());
  if (curl == nullptr) return failure(RpcFailure::transport, where + "cannot create a handle");
  // Reset keeps the handle's open connections; every option is set again below.
  curl_easy_reset(curl);
  std::pair<std::string, std::size_t> response{{}, options_.response_bytes_max};
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, endpoints_[index].url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");  // never a proxy from the environment
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  give_back(curl);

  if (code == CURLE_WRITE_ERROR) {
    return failure(
        RpcFailure::response_too_large,
        where + "response larger than " + std::to_string(options_.response_bytes_max) + " bytes");
  }
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return failure(RpcFailure::timeout, where + "timed out");
  }
  if (code != CURLE_OK) return failure(RpcFailure::transport, where + transport_text(code));

  const std::string& text = response.first;
  rapidjson::Document document;
  if (model::json::nesting_depth(text) <= kResponseDepthMax) {
    document.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  }
  const bool is_object = !document.HasParseError() && document.IsObject();
  if (is_object) {
    if (const auto* error = model::json::member(document, "error"); error && error->IsObject()) {
      return rpc_error_of(*error);
    }
  }
  if (status != 200) {
    return failure(RpcFailure::http_status, where + "HTTP status " + std::to_string(status),
                   status);
  }
  const auto* answered_id = is_object ? model::json::member(document, "id") : nullptr;
  const auto* result = is_object ? model::json::member(document, "result") : nullptr;
  if (answered_id == nullptr || !answered_id->IsInt64() || answered_id->GetInt64() != id ||
      result == nullptr) {
    return failure(RpcFailure::malformed_response, where + "not a JSON-RPC response to the call");
  }
  rapidjson::Document value;
  value.CopyFrom(*result, value.GetAllocator());
  return value;
}

}  // namespace payrail::infra::evm
