// HTTP/1.1 framing on the wire (RFC 9112, issue 12), with raw bytes: Content-Length rules,
// chunked sizes, pipelining, Connection: close and HTTP/1.0, the idle timeout, 408, 413, 414 and
// 431. Each case runs against the API's own plain listener and through the TLS-terminating proxy
// (real HTTPS, the generated CA), so the deployed path is proven as well as the server itself:
// every refusal, on either path, is the error envelope (status, error.type and code, Request-Id
// equal to error.request_id, Content-Type: application/json; issue 38), never the proxy's page.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "schemas/model/common/text.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

// A liveness bound, not a timing assertion: every exchange either completes or closes well
// within it.
constexpr auto kDeadline = std::chrono::seconds(20);

struct Response {
  int status = 0;
  std::string head;
  std::string body;
};

struct Exchange {
  std::vector<Response> responses;
  bool closed = false;  // the server closed the connection
};

// Parses as many whole responses as `bytes` holds.
std::vector<Response> parse_responses(const std::string& bytes) {
  std::vector<Response> responses;
  std::size_t at = 0;
  for (;;) {
    const auto head_end = bytes.find("\r\n\r\n", at);
    if (head_end == std::string::npos || bytes.compare(at, 5, "HTTP/") != 0) break;
    Response response;
    response.head = bytes.substr(at, head_end - at);
    response.status = std::stoi(response.head.substr(9, 3));
    std::smatch length;
    static const std::regex kLength("\\r\\n[Cc]ontent-[Ll]ength: *([0-9]+)");
    std::size_t body_size = 0;
    if (std::regex_search(response.head, length, kLength)) body_size = std::stoul(length[1]);
    if (bytes.size() < head_end + 4 + body_size) break;
    response.body = bytes.substr(head_end + 4, body_size);
    at = head_end + 4 + body_size;
    if (response.status != 100) responses.push_back(std::move(response));
  }
  return responses;
}

// A raw response as the client library's result (lower-case header names), for the envelope
// checks of tests/support/tokens.h.
HttpResult as_result(const Response& response) {
  HttpResult result;
  result.status = response.status;
  result.body = response.body;
  std::size_t at = response.head.find("\r\n");
  while (at != std::string::npos) {
    const auto end = response.head.find("\r\n", at + 2);
    const auto line = response.head.substr(at + 2, end == std::string::npos ? end : end - at - 2);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
      auto name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const auto value = line.find_first_not_of(' ', colon + 1);
      result.headers[name] = value == std::string::npos ? "" : line.substr(value);
    }
    at = end;
  }
  return result;
}

// error.type of the codes these tests meet (docs/errors.md).
std::string_view type_of(std::string_view code) {
  return code == "service_unavailable" ? "api_error" : "invalid_request_error";
}

// The envelope the API answers with: `code` (and `param` when given) and its error.type, a request
// id in the body and the Request-Id header alike, and a JSON content type.
::testing::AssertionResult is_envelope(const Response& response, int status, std::string_view code,
                                       std::optional<std::string_view> param = std::nullopt) {
  const auto result = as_result(response);
  if (auto error = is_error(result, status, code, param); !error) {
    return error << "\n" << response.head;
  }
  const auto json = result.json();
  const auto& error = json["error"];
  if (!error.HasMember("type") || !error["type"].IsString() ||
      error["type"].GetString() != type_of(code)) {
    return ::testing::AssertionFailure()
           << "error.type is not " << type_of(code) << ": " << response.body;
  }
  if (result.header("content-type") != "application/json") {
    return ::testing::AssertionFailure()
           << "Content-Type is '" << result.header("content-type") << "'\n"
           << response.head;
  }
  return ::testing::AssertionSuccess();
}

// One client connection, plain or TLS (verifying the proxy's certificate against the stack's CA).
class Connection {
 public:
  Connection(int port, const std::string& ca_file) : socket_(connect_loopback(port)) {
    if (ca_file.empty()) return;
    context_.reset(SSL_CTX_new(TLS_client_method()));
    SSL_CTX_set_verify(context_.get(), SSL_VERIFY_PEER, nullptr);
    if (SSL_CTX_load_verify_locations(context_.get(), ca_file.c_str(), nullptr) != 1) {
      throw std::runtime_error("cannot load the CA");
    }
    ssl_.reset(SSL_new(context_.get()));
    SSL_set_fd(ssl_.get(), socket_);
    SSL_set_tlsext_host_name(ssl_.get(), "localhost");
    SSL_set1_host(ssl_.get(), "localhost");
    if (SSL_connect(ssl_.get()) != 1) throw std::runtime_error("TLS handshake failed");
  }
  ~Connection() {
    ssl_.reset();
    close(socket_);
  }

  void send_bytes(const std::string& bytes) {
    if (ssl_) {
      SSL_write(ssl_.get(), bytes.data(), static_cast<int>(bytes.size()));
    } else {
      ::send(socket_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    }
  }

  // Reads until `expected` responses arrived (and, with wait_close, the server closed), the
  // server closed, or the deadline passed.
  Exchange read(std::size_t expected, bool wait_close = false) {
    std::string received;
    Exchange exchange;
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    while (std::chrono::steady_clock::now() < deadline) {
      exchange.responses = parse_responses(received);
      if (exchange.responses.size() >= expected && !wait_close) break;
      if (!(ssl_ && SSL_pending(ssl_.get()) > 0)) {
        pollfd poll_fd{socket_, POLLIN, 0};
        if (poll(&poll_fd, 1, 100) <= 0) continue;
      }
      char buffer[16384];
      const int count = ssl_ ? SSL_read(ssl_.get(), buffer, sizeof buffer)
                             : static_cast<int>(recv(socket_, buffer, sizeof buffer, 0));
      if (count <= 0) {
        exchange.closed = true;
        break;
      }
      received.append(buffer, static_cast<std::size_t>(count));
    }
    exchange.responses = parse_responses(received);
    return exchange;
  }

 private:
  struct ContextDeleter {
    void operator()(SSL_CTX* context) const { SSL_CTX_free(context); }
  };
  struct SslDeleter {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  int socket_;
  std::unique_ptr<SSL_CTX, ContextDeleter> context_;
  std::unique_ptr<SSL, SslDeleter> ssl_;
};

enum class Path { plain, tls };

class HttpFraming : public ::testing::TestWithParam<Path> {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack(
        {.workers = {},
         .env = {{"PAYRAIL_HTTP_IDLE_TIMEOUT_MS", "1000"}, {"PAYRAIL_SCREENING_WAIT_MS", "1500"}},
         .tls = true});
    organization_ = new TestOrganization(stack_->create_organization());
  }
  static void TearDownTestSuite() {
    delete organization_;
    delete stack_;
  }

  static bool plain() { return GetParam() == Path::plain; }
  static std::unique_ptr<Connection> open() {
    return plain() ? std::make_unique<Connection>(stack_->http_port(), "")
                   : std::make_unique<Connection>(stack_->tls_port(), stack_->ca_file());
  }
  // One request on a fresh connection; waits for the close when the server should close.
  static Exchange exchange(const std::string& bytes, bool wait_close = false) {
    auto connection = open();
    connection->send_bytes(bytes);
    return connection->read(1, wait_close);
  }
  static std::string create_key_request(const std::string& framing, const std::string& body) {
    return "POST /v1/api-keys HTTP/1.1\r\nHost: localhost\r\nX-API-Key: " +
           organization_->test_key + "\r\nContent-Type: application/json\r\n" + framing + "\r\n" +
           body;
  }

  inline static TestStack* stack_ = nullptr;
  inline static TestOrganization* organization_ = nullptr;
};

// A refusal: the envelope with `code` and `param`, the connection closed by the API (and so by
// the proxy, which forwards its bytes), and a clean body without internal details.
void expect_refused(const Exchange& exchange, int status, const std::string& label,
                    std::optional<std::string_view> param = std::nullopt,
                    std::string_view code = "bad_request") {
  ASSERT_EQ(exchange.responses.size(), 1u) << label;
  const auto& response = exchange.responses.front();
  EXPECT_TRUE(is_envelope(response, status, code, param)) << label;
  EXPECT_TRUE(exchange.closed) << label;
  EXPECT_TRUE(model::text::is_clean(response.body)) << label;
  for (const char* internal : {"basic_string", "std::", "what()", "exception", "Pistache"}) {
    EXPECT_EQ(response.body.find(internal), std::string::npos) << label << ": " << response.body;
  }
}

TEST_P(HttpFraming, InvalidContentLengthIs400AndCloses) {
  const std::string body = R"({"mode":"test"})";
  for (const std::string value : {"-1", "abc", "+15", "+126", "1 5", "0x0f", "15.0", ""}) {
    expect_refused(exchange(create_key_request("Content-Length: " + value + "\r\n", body), true),
                   400, "Content-Length: " + value, "Content-Length");
  }
}

TEST_P(HttpFraming, HugeContentLengthIs413NotA500) {
  for (const std::string value : {"9223372036854775807", "9223372036854775808",
                                  "18446744073709551616", "99999999999999999999999999"}) {
    expect_refused(exchange(create_key_request("Content-Length: " + value + "\r\n", ""), true), 413,
                   value);
  }
}

TEST_P(HttpFraming, ConflictingContentLengthsAreRefused) {
  const std::string body = R"({"mode":"test"})";
  expect_refused(
      exchange(create_key_request("Content-Length: 15\r\nContent-Length: 0\r\n", body), true), 400,
      "two lengths", "Content-Length");
  expect_refused(exchange(create_key_request("Content-Length: 15, 0\r\n", body), true), 400,
                 "a list of two lengths", "Content-Length");
  expect_refused(
      exchange(create_key_request("Content-Length: 15\r\nTransfer-Encoding: chunked\r\n", body),
               true),
      400, "length and chunked", "Transfer-Encoding");
  // The same length twice is one length (RFC 9112 section 6.3).
  const auto same =
      exchange(create_key_request("Content-Length: 15\r\nContent-Length: 15\r\n", body));
  ASSERT_EQ(same.responses.size(), 1u);
  EXPECT_EQ(same.responses.front().status, 201) << same.responses.front().body;
}

TEST_P(HttpFraming, ChunkSizeOverflowIs413WithACleanMessage) {
  const auto result = exchange(
      create_key_request("Transfer-Encoding: chunked\r\n", "ffffffffffffffff\r\nabc\r\n0\r\n\r\n"),
      true);
  expect_refused(result, 413, "chunk size 2^64-1");
  ASSERT_EQ(result.responses.size(), 1u);
  EXPECT_NE(result.responses.front().body.find("exceeds 64 KiB"), std::string::npos);
  // A well-formed chunked body is read whole.
  const auto chunked = exchange(create_key_request(
      "Transfer-Encoding: chunked\r\n", "5\r\n{\"mod\r\na\r\ne\":\"test\"}\r\n0\r\n\r\n"));
  ASSERT_EQ(chunked.responses.size(), 1u);
  EXPECT_EQ(chunked.responses.front().status, 201) << chunked.responses.front().body;
}

TEST_P(HttpFraming, PipelinedRequestsAreAnsweredInOrder) {
  auto connection = open();
  connection->send_bytes(
      "GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n"
      "GET /v1/nothing-here HTTP/1.1\r\nHost: localhost\r\n\r\n"
      "GET /v1/api-keys HTTP/1.1\r\nHost: localhost\r\n\r\n" +
      create_key_request("Content-Length: 15\r\n", R"({"mode":"test"})"));
  const auto result = connection->read(4);
  ASSERT_EQ(result.responses.size(), 4u);
  EXPECT_EQ(result.responses[0].status, 200);
  EXPECT_EQ(result.responses[1].status, 404);
  EXPECT_EQ(result.responses[2].status, 401);
  EXPECT_EQ(result.responses[3].status, 201);
  EXPECT_FALSE(result.closed);
}

TEST_P(HttpFraming, AFastRequestWaitsForTheSlowOneBeforeIt) {
  // No screening worker runs: the create waits PAYRAIL_SCREENING_WAIT_MS before answering.
  const auto body = payout_body("1.00", "USDC", "ethereum", random_evm_address());
  auto connection = open();
  connection->send_bytes(
      "POST /v1/payouts HTTP/1.1\r\nHost: localhost\r\nX-API-Key: " + organization_->test_key +
      "\r\nIdempotency-Key: pipelined-" + (plain() ? "plain" : "tls") +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body + "GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const auto result = connection->read(2);
  ASSERT_EQ(result.responses.size(), 2u);
  EXPECT_TRUE(result.responses[0].status == 201 || result.responses[0].status == 202)
      << result.responses[0].status << " " << result.responses[0].body;
  EXPECT_NE(result.responses[0].body.find("\"object\":\"payout\""), std::string::npos);
  EXPECT_EQ(result.responses[1].status, 200);
}

TEST_P(HttpFraming, ConnectionCloseAndHttp10CloseAfterTheResponse) {
  for (const std::string request :
       {"GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        "GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive, Close\r\n\r\n",
        "GET /v1/health HTTP/1.0\r\n\r\n",
        "GET /v1/health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"}) {
    auto connection = open();
    // What follows a closing request is never answered.
    connection->send_bytes(request + "GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n");
    const auto result = connection->read(1, true);
    ASSERT_EQ(result.responses.size(), 1u) << request;
    EXPECT_EQ(result.responses.front().status, 200) << request;
    EXPECT_TRUE(result.closed) << request;
    EXPECT_NE(result.responses.front().head.find("Connection: close"), std::string::npos);
  }
}

TEST_P(HttpFraming, OversizedHeadersAre431AndUrlsAre414) {
  expect_refused(exchange("GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: " +
                              std::string(100 * 1024, 'a') + "\r\n\r\n",
                          true),
                 431, "100 KB header");
  expect_refused(
      exchange("GET /v1/health?q=" + std::string(200 * 1024, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n",
               true),
      414, "200 KB URL");
  // Far beyond any buffer of the proxy: still the API's own answer.
  expect_refused(exchange("GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: " +
                              std::string(1024 * 1024, 'a') + "\r\n\r\n",
                          true),
                 431, "1 MB header");
}

TEST_P(HttpFraming, RawInvalidBytesInAPathIdAreRefusedByName) {
  const auto result = exchange(
      "DELETE /v1/api-keys/key_\xFF\xFE HTTP/1.1\r\nHost: localhost\r\n"
      "X-API-Key: " +
      organization_->test_key + "\r\n\r\n");
  ASSERT_EQ(result.responses.size(), 1u);
  const auto& response = result.responses.front();
  EXPECT_TRUE(is_envelope(response, 400, "bad_request", "id"));
  EXPECT_TRUE(model::text::is_clean(response.body));
}

TEST_P(HttpFraming, IncompleteHeadersAre408AtTheHeaderTimeout) {
  // The API's 10 s header timeout (docs/errors.md); the proxy's own timers are longer.
  const auto result = exchange("GET /v1/health HTTP/1.1\r\nHost: localhost\r\n", true);
  expect_refused(result, 408, "headers never finished", std::nullopt, "request_timeout");
}

TEST_P(HttpFraming, IdleKeepAliveConnectionsAreClosed) {
  auto connection = open();
  connection->send_bytes("GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n");
  // PAYRAIL_HTTP_IDLE_TIMEOUT_MS is 1 s here: the API closes the connection (and the proxy
  // with it) well before kDeadline.
  const auto result = connection->read(1, true);
  ASSERT_EQ(result.responses.size(), 1u);
  EXPECT_TRUE(result.closed);
}

INSTANTIATE_TEST_SUITE_P(PlainAndTls, HttpFraming, ::testing::Values(Path::plain, Path::tls),
                         [](const auto& info) {
                           return info.param == Path::plain ? "Plain" : "Tls";
                         });

// The proxy's one answer of its own, when no API process accepts the connection: whatever the
// client sent, well-formed or not, the 503 envelope. Once the API is back, requests reach it.
TEST(TlsEdgeWithoutTheApi, AnswersTheUnavailableEnvelopeWhateverWasSent) {
  TestStack stack({.workers = {}, .tls = true});
  stack.stop("api");
  for (const std::string request :
       {"GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "POST /v1/api-keys HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n",
        "GET /v1/\xFF HTTP/1.1\r\nHost: localhost\r\n\r\n", "NOT HTTP AT ALL\r\n\r\n"}) {
    Connection connection(stack.tls_port(), stack.ca_file());
    connection.send_bytes(request);
    const auto result = connection.read(1, true);
    ASSERT_EQ(result.responses.size(), 1u) << request;
    EXPECT_TRUE(is_envelope(result.responses.front(), 503, "service_unavailable", "")) << request;
    EXPECT_TRUE(result.closed) << request;
  }
  stack.start("api");
  // The proxy checks a down API twice a second; kDeadline bounds the wait, it is not measured.
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  int status = 0;
  while (status != 200 && std::chrono::steady_clock::now() < deadline) {
    status = stack.http().get("/v1/health").status;
    if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 200);
}

}  // namespace
}  // namespace payrail::testing
