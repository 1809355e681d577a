// HTTP conventions every endpoint shares: the error envelope, Request-Id, body limits, unknown
// routes and methods, content types, unknown and duplicate fields, nesting depth, and what the
// server does with bytes that are not HTTP at all.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include "tests/support/api_suite.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

// The server's header timeout is 10 s (api/http/server.h); a client must hear something (an
// answer or a close) well within this.
constexpr auto kRawAnswerDeadline = std::chrono::seconds(20);

class HttpConventions : public ApiSuite<HttpConventions> {
 protected:
  static Headers key(Headers extra = {}) { return with_key(organization_->test_key, extra); }
};

// `depth` levels of nesting in total: the object and depth-1 arrays under an unknown field.
std::string nested_body(int depth) {
  return R"({"colour":)" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
}

std::string padded_key_body(std::size_t total_bytes) {
  const std::string head = R"({"mode":"test","name":")";
  const std::string tail = R"("})";
  return head + std::string(total_bytes - head.size() - tail.size(), 'a') + tail;
}

struct RawExchange {
  std::string received;
  bool closed = false;
  std::chrono::milliseconds elapsed{0};
};

// True once `received` holds a whole response: its head and Content-Length bytes of body.
bool complete_response(const std::string& received) {
  const auto head_end = received.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  const auto length_at = received.find("Content-Length: ");
  if (length_at == std::string::npos || length_at > head_end) return true;
  const auto length = std::stoul(received.substr(length_at + 16));
  return received.size() >= head_end + 4 + length;
}

// Appends what arrives on `socket_fd` to `received` until `done(received)` holds or `deadline`
// passes (true), or the peer closes (false).
template <class Done>
bool receive_until(int socket_fd, std::string& received, Done done,
                   std::chrono::steady_clock::time_point deadline) {
  while (std::chrono::steady_clock::now() < deadline && !done(received)) {
    pollfd poll_fd{socket_fd, POLLIN, 0};
    if (poll(&poll_fd, 1, 10) <= 0) continue;
    char buffer[4096];
    const auto count = recv(socket_fd, buffer, sizeof buffer, 0);
    if (count <= 0) return false;
    received.append(buffer, static_cast<std::size_t>(count));
  }
  return true;
}

// Sends raw bytes on a fresh connection and reads until the peer closes, a whole response has
// arrived, or the deadline passes.
RawExchange raw_exchange(int port, const std::string& bytes) {
  RawExchange exchange;
  const auto started = std::chrono::steady_clock::now();
  const int socket_fd = connect_loopback(port);
  send(socket_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  exchange.closed =
      !receive_until(socket_fd, exchange.received, complete_response, started + kRawAnswerDeadline);
  close(socket_fd);
  exchange.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  return exchange;
}

TEST_F(HttpConventions, HealthIsOpenAndReportsDependencies) {
  const auto response = http().get("/v1/health");
  EXPECT_TRUE(has_status(response, 200));
  auto json = response.json();
  EXPECT_STREQ(json["postgres"].GetString(), "ok");
  EXPECT_STREQ(json["kafka"].GetString(), "ok");
}

TEST_F(HttpConventions, UnknownRouteIsResourceMissingWithEnvelope) {
  EXPECT_TRUE(is_error(http().get("/v1/nothing-here"), 404, "resource_missing", ""));
  EXPECT_TRUE(is_error(http().get("/v2/api-keys", key()), 404, "resource_missing"));
  EXPECT_TRUE(is_error(http().get("/v1/api-keys/extra/segments", key()), 404, "resource_missing"));
  // Routing comes first: no credentials and a wrong content type still give 404.
  EXPECT_TRUE(is_error(http().post("/v1/nothing-here", "x", {{"Content-Type", "text/plain"}}), 404,
                       "resource_missing"));
}

TEST_F(HttpConventions, WrongMethodIs405WithAllow) {
  const auto response = http().request("PUT", "/v1/api-keys");
  EXPECT_TRUE(is_error(response, 405, "method_not_allowed"));
  EXPECT_NE(response.header("allow").find("GET"), std::string::npos);
  EXPECT_NE(response.header("allow").find("POST"), std::string::npos);
  const auto on_item = http().request("PATCH", "/v1/api-keys/key_whatever", "", key());
  EXPECT_TRUE(is_error(on_item, 405, "method_not_allowed"));
  EXPECT_EQ(on_item.header("allow"), "DELETE");
}

TEST_F(HttpConventions, MalformedJsonIsBadRequest) {
  for (const std::string body : {R"({"mode":)", R"({"mode":"test",})", "{mode:'test'}", "{",
                                 R"({"mode":"test"} trailing)"}) {
    EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, key()), 400, "bad_request", "")) << body;
  }
}

TEST_F(HttpConventions, InvalidUtf8IsBadRequest) {
  const std::string body = "{\"mode\":\"test\",\"name\":\"\xC3\x28\"}";
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, key()), 400, "bad_request"));
}

TEST_F(HttpConventions, NonObjectBodyIsBadRequest) {
  for (const std::string body : {"[]", R"(["mode","test"])", R"("text")", "42", "null", "true"}) {
    EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, key()), 400, "bad_request", "")) << body;
  }
}

TEST_F(HttpConventions, WrongContentTypeIs415BadRequest) {
  const std::string body = R"({"mode":"test"})";
  for (const std::string type :
       {"text/plain", "application/x-www-form-urlencoded", "application/xml",
        "multipart/form-data; boundary=x", "text/csv"}) {
    EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, key({{"Content-Type", type}})), 415,
                         "bad_request"))
        << type;
  }
  // The content type is checked before credentials.
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, {{"Content-Type", "text/plain"}}), 415,
                       "bad_request"));
}

TEST_F(HttpConventions, MissingContentTypeWithBodyIs415) {
  // curl would add a form content type to a POST body; the raw request sends none at all.
  const std::string body = R"({"mode":"test"})";
  const auto exchange = raw_exchange(
      std::stoi(stack_->env().at("PAYRAIL_HTTP_PORT")),
      "POST /v1/api-keys HTTP/1.1\r\nHost: localhost\r\nX-API-Key: " + organization_->test_key +
          "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(exchange.received.rfind("HTTP/1.1 415", 0), 0u) << exchange.received;
  EXPECT_NE(exchange.received.find("\"code\":\"bad_request\""), std::string::npos);
  EXPECT_NE(exchange.received.find("Request-Id: req_"), std::string::npos);
}

TEST_F(HttpConventions, JsonContentTypeWithParametersOrAnyCaseIsAccepted) {
  // Media types are case-insensitive and may carry parameters (RFC 9110 section 8.3.1).
  for (const std::string type :
       {"application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON",
        "application/json ; charset=utf-8"}) {
    EXPECT_TRUE(has_status(
        http().post("/v1/api-keys", R"({"mode":"test"})", key({{"Content-Type", type}})), 201))
        << type;
  }
}

TEST_F(HttpConventions, UnparsableContentTypeIs415) {
  // Any media type other than application/json, parsable or not, is 415 (docs/errors.md).
  for (const std::string type : {"garbage", "foo/bar", "application/json-patch+json",
                                 "application/jsonx", ";", "application/json/x"}) {
    const auto response =
        http().post("/v1/api-keys", R"({"mode":"test"})", key({{"Content-Type", type}}));
    EXPECT_TRUE(is_error(response, 415, "bad_request")) << type;
  }
}

TEST_F(HttpConventions, BodyOverLimitIs413BadRequest) {
  // Expect: (empty) keeps curl from sending the body only after a 100 Continue.
  const Headers headers = key({{"Expect", ""}});
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", padded_key_body(70 * 1024), headers), 413,
                       "bad_request"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", padded_key_body(1024 * 1024), headers), 413,
                       "bad_request"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", padded_key_body(64 * 1024 + 1), headers), 413,
                       "bad_request"));
  // Exactly 64 KiB is within the limit: it reaches the handler, which refuses the long name.
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", padded_key_body(64 * 1024), headers), 400,
                       "bad_request", "name"));
  EXPECT_TRUE(has_status(http().get("/v1/health"), 200));
}

// The bodies of the whole responses at the start of `received`.
std::vector<std::string> whole_bodies(const std::string& received) {
  std::vector<std::string> bodies;
  std::size_t at = 0;
  for (;;) {
    const auto head_end = received.find("\r\n\r\n", at);
    const auto length_at = received.find("Content-Length: ", at);
    if (head_end == std::string::npos || length_at == std::string::npos || length_at > head_end) {
      break;
    }
    const auto length = std::stoul(received.substr(length_at + 16));
    if (received.size() < head_end + 4 + length) break;
    bodies.push_back(received.substr(head_end + 4, length));
    at = head_end + 4 + length;
  }
  return bodies;
}

// Reads until `count` whole responses arrived; returns their bodies.
std::vector<std::string> read_bodies(int socket_fd, std::size_t count) {
  std::string received;
  receive_until(
      socket_fd, received,
      [count](const std::string& bytes) { return whole_bodies(bytes).size() >= count; },
      std::chrono::steady_clock::now() + kRawAnswerDeadline);
  return whole_bodies(received);
}

// The most a TCP socket's send buffer grows to on this machine (the third of tcp_wmem).
std::size_t largest_send_buffer_bytes() {
  std::ifstream file("/proc/sys/net/ipv4/tcp_wmem");
  std::size_t smallest = 0, initial = 0, largest = 0;
  file >> smallest >> initial >> largest;
  return largest > 0 ? largest : 4u * 1024 * 1024;
}

TEST_F(HttpConventions, LargeResponsesReachAClientThatReadsSlowly) {
  // Pipelined requests for the OpenAPI document, more answer bytes than the largest send buffer
  // holds: the server's socket takes part of them and refuses the rest until the client reads.
  // The rest must follow, in order, and the connection then serves the next request.
  const auto expected = http().get("/v1/openapi.json");
  ASSERT_TRUE(has_status(expected, 200));
  ASSERT_GT(expected.body.size(), 64u * 1024);
  const std::size_t requests_count =
      (largest_send_buffer_bytes() + 1024 * 1024) / expected.body.size() + 1;
  const int socket_fd = connect_loopback(stack_->http_port(), 4096);
  std::string requests;
  for (std::size_t i = 0; i < requests_count; ++i) {
    requests += "GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n";
  }
  send(socket_fd, requests.data(), requests.size(), MSG_NOSIGNAL);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto bodies = read_bodies(socket_fd, requests_count);
  ASSERT_EQ(bodies.size(), requests_count);
  for (const auto& body : bodies) EXPECT_TRUE(body == expected.body);
  const std::string next = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
  send(socket_fd, next.data(), next.size(), MSG_NOSIGNAL);
  EXPECT_EQ(read_bodies(socket_fd, 1).size(), 1u);
  close(socket_fd);
}

TEST_F(HttpConventions, NestingDeeperThan32IsBadRequest) {
  // 33 levels: refused by the depth check before any field is looked at (no param).
  EXPECT_TRUE(
      is_error(http().post("/v1/api-keys", nested_body(33), key()), 400, "bad_request", ""));
  // 32 levels: parsed; the unknown field is what gets refused.
  EXPECT_TRUE(
      is_error(http().post("/v1/api-keys", nested_body(32), key()), 400, "bad_request", "colour"));
  EXPECT_TRUE(is_error(http().post("/v1/organizations", nested_body(33),
                                   with_session(stack_->dev_session(unique_email()))),
                       400, "bad_request", ""));
}

TEST_F(HttpConventions, PathologicalNestingNeitherCrashesNorHangs) {
  // RapidJSON 1.1.0 recurses on nesting; 60000 levels would overflow its stack.
  const std::string deep = std::string(30000, '[') + std::string(30000, ']');
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", deep, key()), 400, "bad_request"));
  const std::string unclosed = R"({"a":)" + std::string(60000, '{');
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", unclosed, key()), 400, "bad_request"));
  EXPECT_TRUE(has_status(http().get("/v1/health"), 200));
}

TEST_F(HttpConventions, UnknownBodyFieldIsRejectedWithParam) {
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", R"({"mode":"test","colour":"red"})", key()), 400,
                       "bad_request", "colour"));
  EXPECT_TRUE(is_error(http().post("/v1/organizations",
                                   R"({"legal_name":"A","display_name":"A","country":"CA",)"
                                   R"("colour":"red"})",
                                   with_session(stack_->dev_session(unique_email()))),
                       400, "bad_request", "colour"));
}

TEST_F(HttpConventions, UnknownNestedFieldIsRejectedWithDottedParam) {
  const std::string body =
      R"({"amount":"1.00","currency":"USDC","destination":{"network":"ethereum",)"
      R"("address":"0x52908400098527886E0F7030069857D2E4169EE7","colour":"red"}})";
  EXPECT_TRUE(
      is_error(http().post("/v1/payouts", body, key({{"Idempotency-Key", "nested-unknown-field"}})),
               400, "bad_request", "destination.colour"));
}

TEST_F(HttpConventions, DuplicateMemberIsRejected) {
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", R"({"mode":"test","mode":"live"})", key()), 400,
                       "bad_request", "mode"));
}

TEST_F(HttpConventions, EveryResponseCarriesARequestId) {
  std::vector<HttpResult> responses{
      http().get("/v1/health"),
      http().get("/v1/api-keys", key()),
      http().get("/v1/api-keys"),
      http().request("PUT", "/v1/api-keys"),
      http().post("/v1/api-keys", "{", key()),
  };
  std::set<std::string> seen;
  for (const auto& response : responses) {
    const auto request_id = response.header("request-id");
    EXPECT_EQ(request_id.rfind("req_", 0), 0u) << response.status << " " << response.body;
    EXPECT_TRUE(seen.insert(request_id).second) << "request ids must be unique: " << request_id;
  }
}

// Bytes that are not an HTTP request: the server answers 400 bad_request with the envelope at
// once and closes the connection (api/http/framing.h); an incomplete request is answered 408 at
// the header timeout.
TEST_F(HttpConventions, MalformedRawRequestsAnswerOrCloseWithinHeaderTimeout) {
  const int port = std::stoi(stack_->env().at("PAYRAIL_HTTP_PORT"));
  const std::vector<std::string> requests{
      "GARBAGE\r\n\r\n",
      "BREW /v1/health HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n",
      std::string("\x00\x01\x02\xff\r\n\r\n", 8),
  };
  std::vector<std::future<RawExchange>> exchanges;
  for (const auto& request : requests) {
    exchanges.push_back(std::async(std::launch::async, raw_exchange, port, request));
  }
  for (std::size_t i = 0; i < exchanges.size(); ++i) {
    const auto exchange = exchanges[i].get();
    const bool answered = exchange.received.rfind("HTTP/1.1 4", 0) == 0;
    EXPECT_TRUE(answered || exchange.closed) << "request " << i << ": " << exchange.received;
    EXPECT_LT(exchange.elapsed, kRawAnswerDeadline) << "request " << i;
  }
  EXPECT_TRUE(has_status(http().get("/v1/health"), 200));
}

TEST_F(HttpConventions, BadMethodOnTheWireIsAnEnvelopeAtOnce) {
  const auto exchange = raw_exchange(std::stoi(stack_->env().at("PAYRAIL_HTTP_PORT")),
                                     "BREW /v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(exchange.received.rfind("HTTP/1.1 400", 0), 0u) << exchange.received;
  EXPECT_NE(exchange.received.find("\"code\":\"bad_request\""), std::string::npos);
  EXPECT_NE(exchange.received.find("Request-Id: req_"), std::string::npos);
}

// Sends the body a request announced without a pause, from a thread of its own, until a whole
// response arrives or `give_up_after` passes, and returns what was received.
std::string answer_while_sending(int port, const std::string& head,
                                 std::chrono::milliseconds give_up_after) {
  const int socket_fd = connect_loopback(port);
  send(socket_fd, head.data(), head.size(), MSG_NOSIGNAL);
  std::atomic<bool> stop = false;
  std::thread sender([socket_fd, &stop] {
    const std::string chunk(64 * 1024, 'a');
    while (!stop && send(socket_fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) > 0) {
    }
  });
  std::string received;
  receive_until(socket_fd, received, complete_response,
                std::chrono::steady_clock::now() + give_up_after);
  stop = true;
  shutdown(socket_fd, SHUT_RDWR);  // a send blocked on a full buffer returns
  sender.join();
  close(socket_fd);
  return received;
}

// A stack whose processes (the API and the broker) read slowly (tests/shims/slow_recv.c,
// preloaded): the API reads slower than a client streams to it, as a loaded machine can make it.
class SlowReadingServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack(
        {.workers = {}, .env = {{"LD_PRELOAD", bin_path("tests/libpayrail_slow_recv.so")}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    stack_ = nullptr;
  }
  inline static TestStack* stack_ = nullptr;
};

TEST_F(SlowReadingServer, RefusalReachesAClientThatIsStillSending) {
  // The 413 is decided from the head alone; it must reach the client while the announced body
  // still streams in. Pistache's reactor once sent it only on a readiness event that reported
  // the socket writable and not readable, which never came while bytes kept arriving: the
  // client waited for as long as it sent, then for ever (most likely the 30 s timeout that
  // BodyOverLimitIs413BadRequest met in one CI run).
  const int port = stack_->http_port();
  const std::string head =
      "POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 1073741824\r\n\r\n";
  std::vector<std::future<std::string>> clients;
  for (int client = 0; client < 4; ++client) {
    clients.push_back(std::async(std::launch::async, [port, &head] {
      for (int attempt = 0; attempt < 5; ++attempt) {
        auto received = answer_while_sending(port, head, std::chrono::seconds(5));
        if (received.rfind("HTTP/1.1 413", 0) != 0) return received;
      }
      return std::string("HTTP/1.1 413");
    }));
  }
  for (auto& client : clients) {
    const auto received = client.get();
    EXPECT_EQ(received.rfind("HTTP/1.1 413", 0), 0u) << received;
  }
  EXPECT_TRUE(has_status(stack_->http().get("/v1/health"), 200));
}

}  // namespace
}  // namespace payrail::testing
