// HTTP/1.1 input framing (api/http/framing.cc): the bytes arrive split at fuzzer-chosen points.
// Invariants: no crash; every request's body is within the limit; after an error every call
// returns an error; the same bytes framed in one piece give the same requests.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/http/framing.h"

using namespace payrail::api::http;

namespace {

constexpr FramingLimits kLimits{.request_line_max_bytes = 256,
                                .header_section_max_bytes = 1024,
                                .header_fields_max = 16,
                                .body_max_bytes = 512};

// Frames `bytes` fed in pieces of the given sizes; returns requests (method+target+body) and
// whether it ended in an error.
std::pair<std::vector<std::string>, bool> frame(std::string_view bytes,
                                                const std::vector<std::size_t>& pieces) {
  RequestParser parser(kLimits);
  std::vector<std::string> requests;
  bool failed = false;
  std::size_t at = 0;
  auto drain = [&] {
    for (;;) {
      auto step = parser.next();
      if (std::holds_alternative<NeedMore>(step)) return;
      if (std::holds_alternative<payrail::model::Error>(step)) {
        failed = true;
        if (!std::holds_alternative<payrail::model::Error>(parser.next())) std::abort();
        return;
      }
      const auto& request = std::get<RawRequest>(step);
      if (request.body.size() > kLimits.body_max_bytes) std::abort();
      requests.push_back(request.method + " " + request.target + " " + request.body);
    }
  };
  for (const auto piece : pieces) {
    if (failed || at >= bytes.size()) break;
    const auto length = std::min(piece, bytes.size() - at);
    parser.feed(bytes.substr(at, length));
    at += length;
    drain();
  }
  if (!failed && at < bytes.size()) {
    parser.feed(bytes.substr(at));
    drain();
  }
  return {requests, failed};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  std::vector<std::size_t> pieces;
  for (std::size_t i = 0; i < 4; ++i) pieces.push_back(1 + data[i] % 64);
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 4, size - 4);
  const auto split = frame(bytes, pieces);
  const auto whole = frame(bytes, {bytes.size() + 1});
  // An error cuts the stream; up to it, both framings saw the same requests.
  if (!split.second && !whole.second && split.first != whole.first) std::abort();
  const auto common = std::min(split.first.size(), whole.first.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (split.first[i] != whole.first[i]) std::abort();
  }
  return 0;
}
