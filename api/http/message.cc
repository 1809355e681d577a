#include "api/http/message.h"

#include <strings.h>

#include "infra/plumbing/log/log.h"
#include "schemas/model/common/json.h"
#include "schemas/model/common/text.h"

namespace payrail::api {

bool CaseInsensitiveLess::operator()(std::string_view a, std::string_view b) const {
  const auto common = std::min(a.size(), b.size());
  const int order = strncasecmp(a.data(), b.data(), common);
  if (order != 0) return order < 0;
  return a.size() < b.size();
}

std::optional<std::string_view> HttpRequest::header(std::string_view name) const {
  const auto it = headers.find(name);
  if (it == headers.end()) return std::nullopt;
  return std::string_view(it->second);
}

bool HttpRequest::header_repeated(std::string_view name) const {
  const CaseInsensitiveLess less;
  for (const auto& repeated : repeated_headers) {
    if (!less(repeated, name) && !less(name, repeated)) return true;
  }
  return false;
}

model::Result<std::optional<std::string>> HttpRequest::query_value(std::string_view name) const {
  std::optional<std::string> found;
  for (const auto& [key, value] : query) {
    if (key != name) continue;
    if (found) return model::bad_request("Query parameter repeated.", std::string(name));
    found = value;
  }
  return found;
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse HttpResponse::no_content() {
  HttpResponse response;
  response.status = 204;
  return response;
}

HttpResponse error_response(const model::Error& error, std::string_view request_id) {
  const auto& spec = model::error_spec(error.code);
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  writer.StartObject();
  model::json::write_key(writer, "error");
  writer.StartObject();
  model::json::write_key_string(writer, "type", spec.type);
  model::json::write_key_string(writer, "code", spec.wire_code);
  // Messages and params may quote what the client sent; the envelope stays valid UTF-8 whatever
  // that was.
  using model::text::sanitized;
  model::json::write_key_string(writer, "message", sanitized(error.message));
  if (error.param) model::json::write_key_string(writer, "param", sanitized(*error.param));
  for (const auto& [key, value] : error.extra) {
    model::json::write_key_string(writer, key, sanitized(value));
  }
  model::json::write_key_string(writer, "request_id", request_id);
  writer.EndObject();
  writer.EndObject();
  auto response = HttpResponse::json(spec.http_status, buffer.GetString());
  for (const auto& header : error.headers) response.headers.push_back(header);
  return response;
}

Responder::Responder(std::string request_id, SendFunction send)
    : request_id_(std::move(request_id)), send_(std::move(send)) {}

Responder::Responder(Responder&& other) noexcept
    : request_id_(std::move(other.request_id_)),
      send_(std::exchange(other.send_, nullptr)),
      extra_headers_(std::move(other.extra_headers_)) {}

Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    request_id_ = std::move(other.request_id_);
    send_ = std::exchange(other.send_, nullptr);
    extra_headers_ = std::move(other.extra_headers_);
  }
  return *this;
}

Responder::~Responder() {
  if (!send_) return;
  infra::log::error("http.response_dropped", {{"request_id", request_id_}});
  send_error(model::Error::make(model::ErrorCode::internal_error, "An internal error occurred."));
}

void Responder::add_header(std::string name, std::string value) {
  extra_headers_.emplace_back(std::move(name), std::move(value));
}

void Responder::send(HttpResponse response) {
  if (!send_) return;
  auto send = std::move(send_);
  send_ = nullptr;
  for (auto& header : extra_headers_) response.headers.push_back(std::move(header));
  send(std::move(response));
}

void Responder::send_error(const model::Error& error) {
  send(error_response(error, request_id_));
}

}  // namespace payrail::api
