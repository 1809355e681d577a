#include "api/http/server.h"

#include <pistache/endpoint.h>
#include <pistache/http.h>
#include <pistache/peer.h>

#include <algorithm>
#include <sstream>

#include "infra/crypto/crypto.h"
#include "infra/log/log.h"

namespace payrail::api {
namespace {

using Pistache::Http::ResponseWriter;
namespace Http = Pistache::Http;

model::Error payload_too_large(std::size_t body_max_bytes) {
  return model::Error::make(
      model::ErrorCode::payload_too_large,
      "The request body exceeds " + std::to_string(body_max_bytes / 1024) + " KiB.");
}

// Pistache 0.0.5 writes only typed headers (raw ones are dropped), so response headers that
// Pistache has no type for (Request-Id, RateLimit-*, Retry-After) use this one.
class NamedHeader : public Http::Header::Header {
 public:
  NamedHeader(std::string name, std::string value)
      : name_(std::move(name)), value_(std::move(value)) {}
  const char* name() const override { return name_.c_str(); }
  void write(std::ostream& stream) const override { stream << value_; }
  std::uint64_t hash() const override { return std::hash<std::string>{}(name_); }

 private:
  std::string name_;
  std::string value_;
};

void send_via_writer(const std::shared_ptr<ResponseWriter>& writer, const std::string& request_id,
                     HttpResponse response) {
  try {
    // A replayed response carries the original request's id instead of this one's.
    const bool has_request_id =
        std::any_of(response.headers.begin(), response.headers.end(),
                    [](const auto& header) { return header.first == "Request-Id"; });
    if (!has_request_id) {
      writer->headers().add(std::make_shared<NamedHeader>("Request-Id", request_id));
    }
    for (const auto& [name, value] : response.headers) {
      writer->headers().add(std::make_shared<NamedHeader>(name, value));
    }
    if (response.status == 204) {
      writer->send(Http::Code::No_Content);
      return;
    }
    writer->send(static_cast<Http::Code>(response.status), response.body, MIME(Application, Json));
  } catch (const std::exception& failure) {
    // The client went away before we answered; nothing else to do.
    infra::log::debug("http.send_failed", {{"error", failure.what()}});
  }
}

Responder make_responder(ResponseWriter writer, std::string request_id) {
  auto shared_writer = std::make_shared<ResponseWriter>(std::move(writer));
  return Responder(request_id, [shared_writer, request_id](HttpResponse response) {
    send_via_writer(shared_writer, request_id, std::move(response));
  });
}

void copy_headers(const Http::Request& source, HttpRequest& target) {
  for (const auto& header : source.headers().list()) {
    std::ostringstream value;
    header->write(value);
    target.headers[header->name()] = value.str();
  }
  for (const auto& [name, raw] : source.headers().rawList()) target.headers[name] = raw.value();
}

int hex_value(char digit) {
  if (digit >= '0' && digit <= '9') return digit - '0';
  if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
  if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
  return -1;
}

// Pistache 0.0.5 hands query names and values over still percent-encoded; clients encode
// characters such as ':' in timestamps (created_gte=2026-11-21T00%3A00%3A00Z). Malformed escapes
// are kept as they are, for validation to refuse.
std::string percent_decoded(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool escape = text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
                        hex_value(text[i + 2]) >= 0;
    if (!escape) {
      decoded += text[i];
      continue;
    }
    decoded += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
    i += 2;
  }
  return decoded;
}

HttpRequest copy_request(const Http::Request& source) {
  HttpRequest request;
  request.request_id = new_request_id();
  request.method = Http::methodString(source.method());
  request.path = source.resource();
  for (auto it = source.query().parameters_begin(); it != source.query().parameters_end(); ++it) {
    request.query.emplace_back(percent_decoded(it->first), percent_decoded(it->second));
  }
  copy_headers(source, request);
  request.body = source.body();
  request.received_at = std::chrono::steady_clock::now();
  return request;
}

}  // namespace

std::string new_request_id() {
  return "req_" + infra::crypto::random_base62(24);
}

struct HttpServer::Shared {
  HttpServerOptions options;
  WorkerPool* pool;
  Dispatch dispatch;
};

class PayrailHandler : public Http::Handler {
 public:
  HTTP_PROTOTYPE(PayrailHandler)

  explicit PayrailHandler(std::shared_ptr<HttpServer::Shared> shared)
      : shared_(std::move(shared)) {}

  void onRequest(const Http::Request& source, ResponseWriter writer) override {
    auto request = copy_request(source);
    auto responder = make_responder(std::move(writer), request.request_id);
    if (request.body.size() > shared_->options.body_max_bytes) {
      responder.send_error(payload_too_large(shared_->options.body_max_bytes));
      return;
    }
    auto task = std::make_shared<std::pair<HttpRequest, Responder>>(std::move(request),
                                                                    std::move(responder));
    const bool queued = shared_->pool->try_submit([task, dispatch = &shared_->dispatch] {
      (*dispatch)(std::move(task->first), std::move(task->second));
    });
    if (!queued) {
      auto error = model::Error::make(model::ErrorCode::service_unavailable,
                                      "The service is overloaded; retry with backoff.");
      error.headers["Retry-After"] = "1";
      task->second.send_error(error);
    }
  }

  void onTimeout(const Http::Request&, ResponseWriter writer) override {
    make_responder(std::move(writer), new_request_id())
        .send_error(model::Error::make(model::ErrorCode::request_timeout,
                                       "The request was not received in time."));
  }

  // Same as Pistache's Http::Handler::onInput, except that protocol errors get the error
  // envelope and HTTP/1.1 requests without a Connection header stay keep-alive (RFC 9112).
  void onInput(const char* buffer, size_t length,
               const std::shared_ptr<Pistache::Tcp::Peer>& peer) override {
    auto parser = getParser(peer);
    auto& request = parser->request;
    try {
      if (!parser->feed(buffer, length)) {
        parser->reset();
        reject(peer, request.version(), payload_too_large(shared_->options.body_max_bytes));
        return;
      }
      if (parser->parse() != Http::Private::State::Done) return;
      ResponseWriter writer(request.version(), transport(), this, peer);
      request.copyAddress(peer->address());
      set_connection_header(request, writer);
      peer->setIdle(false);
      onRequest(request, std::move(writer));
      parser->reset();
    } catch (const Http::HttpError& failure) {
      parser->reset();
      reject(peer, request.version(),
             model::bad_request(std::string("Malformed HTTP request: ") + failure.reason()));
    } catch (const std::exception& failure) {
      parser->reset();
      infra::log::error("http.input_failed", {{"error", failure.what()}});
      reject(peer, request.version(),
             model::Error::make(model::ErrorCode::internal_error, "An internal error occurred."));
    }
  }

 private:
  static void set_connection_header(const Http::Request& request, ResponseWriter& writer) {
    auto connection = request.headers().tryGet<Http::Header::Connection>();
    auto control = Http::ConnectionControl::KeepAlive;
    if (connection) {
      control = connection->control();
    } else if (request.version() == Http::Version::Http10) {
      control = Http::ConnectionControl::Close;
    }
    writer.headers().add<Http::Header::Connection>(control);
  }

  void reject(const std::shared_ptr<Pistache::Tcp::Peer>& peer, Http::Version version,
              const model::Error& error) {
    ResponseWriter writer(version, transport(), this, peer);
    writer.headers().add<Http::Header::Connection>(Http::ConnectionControl::Close);
    make_responder(std::move(writer), new_request_id()).send_error(error);
  }

  std::shared_ptr<HttpServer::Shared> shared_;
};

HttpServer::HttpServer(HttpServerOptions options, WorkerPool& pool, Dispatch dispatch)
    : options_(std::move(options)),
      shared_(std::make_shared<Shared>(Shared{options_, &pool, std::move(dispatch)})) {}

HttpServer::~HttpServer() {
  shutdown();
}

void HttpServer::start() {
  Pistache::Address address(options_.address, Pistache::Port(options_.port));
  endpoint_ = std::make_unique<Http::Endpoint>(address);
  auto endpoint_options =
      Http::Endpoint::options()
          .threads(options_.reactor_threads)
          .flags(options_.reuse_port
                     ? Pistache::Tcp::Options::ReuseAddr | Pistache::Tcp::Options::ReusePort
                     : Pistache::Tcp::Options::ReuseAddr)
          .maxRequestSize(options_.body_max_bytes + options_.header_allowance_bytes)
          .maxResponseSize(4 * 1024 * 1024)
          .headerTimeout(options_.header_timeout)
          .bodyTimeout(options_.body_timeout);
  endpoint_->init(endpoint_options);
  endpoint_->setHandler(Http::make_handler<PayrailHandler>(shared_));
  endpoint_->serveThreaded();
}

std::uint16_t HttpServer::port() const {
  return endpoint_ ? static_cast<std::uint16_t>(endpoint_->getPort()) : 0;
}

void HttpServer::shutdown() {
  if (!endpoint_) return;
  endpoint_->shutdown();
  endpoint_.reset();
}

}  // namespace payrail::api
