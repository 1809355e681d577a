// Transport-neutral HTTP request and response. The Pistache adapter copies each request into an
// HttpRequest on the reactor thread and everything after that runs on the API worker pool.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::api {

struct CaseInsensitiveLess {
  bool operator()(std::string_view a, std::string_view b) const;
  using is_transparent = void;
};

using HeaderMap = std::map<std::string, std::string, CaseInsensitiveLess>;

struct HttpRequest {
  std::string request_id;
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;  // percent-decoded, in order
  HeaderMap headers;  // a repeated field's values joined with ", " (RFC 9110 section 5.3)
  std::vector<std::string> repeated_headers;  // names of fields that appeared more than once
  std::string body;
  std::chrono::steady_clock::time_point received_at;

  std::optional<std::string_view> header(std::string_view name) const;
  bool header_repeated(std::string_view name) const;
  // The single value of a query parameter; an error if it is repeated.
  model::Result<std::optional<std::string>> query_value(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // JSON, or empty for 204

  static HttpResponse json(int status, std::string body);
  static HttpResponse no_content();
};

// Renders the error envelope {"error": {type, code, message, param?, request_id, ...extra}}.
HttpResponse error_response(const model::Error& error, std::string_view request_id);

// Sends exactly one response for a request, from any thread. Dropping a Responder without
// sending answers 500 so that a bug can never leave a client hanging.
class Responder {
 public:
  using SendFunction = std::function<void(HttpResponse)>;
  Responder(std::string request_id, SendFunction send);
  Responder(Responder&& other) noexcept;
  Responder& operator=(Responder&& other) noexcept;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;
  ~Responder();

  void send(HttpResponse response);
  void send_error(const model::Error& error);
  const std::string& request_id() const { return request_id_; }

  // Headers added to whatever response is finally sent (rate-limit headers, for example).
  void add_header(std::string name, std::string value);

 private:
  std::string request_id_;
  SendFunction send_;
  std::vector<std::pair<std::string, std::string>> extra_headers_;
};

}  // namespace payrail::api
