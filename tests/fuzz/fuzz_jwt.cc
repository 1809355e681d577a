// Session token parsing (infra/plumbing/auth/jwt.cc): arbitrary tokens, and arbitrary header and
// claim JSON signed with the right HS256 secret so the claim checks are reached. A verified
// session's strings must be clean text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/crypto/crypto.h"
#include "schemas/model/common/text.h"

using namespace payrail;

namespace {

constexpr std::string_view kSecret = "fuzzing-secret-0123456789abcdef0123456789";

const infra::auth::JwtVerifier& verifier() {
  static const auto created = infra::auth::JwtVerifier::create(
      {.issuer = "payrail-dev", .audience = "payrail-api", .hs256_secret = std::string(kSecret)});
  if (!created.ok()) std::abort();
  return created.value();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::int64_t kNow = 1700000000;
  (void)verifier().verify(input, kNow);
  // header JSON, a 0xFF separator, claims JSON: signed properly.
  const auto separator = input.find('\xFF');
  if (separator == std::string_view::npos) return 0;
  const auto signing_input = infra::crypto::base64url_encode(input.substr(0, separator)) + "." +
                             infra::crypto::base64url_encode(input.substr(separator + 1));
  const auto token =
      signing_input + "." +
      infra::crypto::base64url_encode(infra::crypto::hmac_sha256(kSecret, signing_input));
  auto claims = verifier().verify(token, kNow);
  if (claims.ok() &&
      (!model::text::is_clean(claims->subject) || !model::text::is_clean(claims->email))) {
    std::abort();
  }
  return 0;
}
