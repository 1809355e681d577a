#include "infra/plumbing/auth/jwt.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra::auth {
namespace {

using crypto::base64url_encode;

constexpr std::int64_t kNow = 1'700'000'000;
constexpr std::string_view kIssuer = "https://idp.example.test";
constexpr std::string_view kAudience = "payrail";
constexpr std::string_view kSecret = "development-secret-0123456789abcdef";

JwtConfig hs_config() {
  JwtConfig config;
  config.issuer = kIssuer;
  config.audience = kAudience;
  config.hs256_secret = std::string(kSecret);
  return config;
}

JwtVerifier make_verifier(const JwtConfig& config) {
  auto verifier = JwtVerifier::create(config);
  EXPECT_TRUE(verifier.ok()) << (verifier.ok() ? "" : verifier.error().message);
  return std::move(verifier).value();
}

std::string payload_json(std::string_view extra_members = "") {
  std::string json = R"({"iss":"https://idp.example.test","aud":"payrail","sub":"mem_123",)"
                     R"("email":"ada@example.test","iat":1700000000,"exp":1700000900)";
  json += extra_members;
  return json + "}";
}

std::string hs_token(std::string_view header, std::string_view payload,
                     std::string_view secret = kSecret) {
  const std::string signing_input = base64url_encode(header) + "." + base64url_encode(payload);
  return signing_input + "." + base64url_encode(crypto::hmac_sha256(secret, signing_input));
}

std::string hs_token(std::string_view payload) {
  return hs_token(R"({"alg":"HS256","typ":"JWT"})", payload);
}

void expect_rejected(const model::Result<SessionClaims>& result, std::string_view message = "") {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, model::ErrorCode::session_invalid);
  if (!message.empty()) {
    EXPECT_EQ(result.error().message, message);
  }
}

TEST(JwtHs256Test, MintedTokenVerifies) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string token =
      mint_hs256_session(hs_config(), "mem_42", "ada@example.test", kNow, 900);
  const auto claims = verifier.verify(token, kNow + 10);
  ASSERT_TRUE(claims.ok()) << claims.error().message;
  EXPECT_EQ(claims->subject, "mem_42");
  EXPECT_EQ(claims->email, "ada@example.test");
  EXPECT_EQ(claims->expires_at_unix, kNow + 900);
  EXPECT_EQ(verifier.algorithm(), JwtAlgorithm::hs256);
}

TEST(JwtHs256Test, MintWithoutSecretIsEmpty) {
  JwtConfig config = hs_config();
  config.hs256_secret.reset();
  EXPECT_EQ(mint_hs256_session(config, "mem_42", "ada@example.test", kNow, 900), "");
}

TEST(JwtHs256Test, ExpiryHonoursLeeway) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string token = mint_hs256_session(hs_config(), "mem_1", "a@example.test", kNow, 900);
  EXPECT_TRUE(verifier.verify(token, kNow + 900 + 30).ok());
  expect_rejected(verifier.verify(token, kNow + 900 + 31), "session expired");
}

TEST(JwtHs256Test, NotBeforeInFutureRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  expect_rejected(verifier.verify(hs_token(payload_json(R"(,"nbf":1700000120)")), kNow),
                  "session not yet valid");
  EXPECT_TRUE(verifier.verify(hs_token(payload_json(R"(,"nbf":1700000020)")), kNow).ok());
}

TEST(JwtHs256Test, WrongIssuerRejected) {
  JwtConfig other = hs_config();
  other.issuer = "https://evil.example.test";
  const std::string token = mint_hs256_session(other, "mem_1", "a@example.test", kNow, 900);
  expect_rejected(make_verifier(hs_config()).verify(token, kNow), "session issuer mismatch");
}

TEST(JwtHs256Test, WrongAudienceRejected) {
  JwtConfig other = hs_config();
  other.audience = "another-service";
  const std::string token = mint_hs256_session(other, "mem_1", "a@example.test", kNow, 900);
  expect_rejected(make_verifier(hs_config()).verify(token, kNow), "session audience mismatch");
}

TEST(JwtHs256Test, AudienceArray) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string base = R"({"iss":"https://idp.example.test","sub":"mem_1",)"
                           R"("email":"a@example.test","exp":1700000900,"aud":)";
  EXPECT_TRUE(verifier.verify(hs_token(base + R"(["other","payrail"]})"), kNow).ok());
  expect_rejected(verifier.verify(hs_token(base + R"(["other","payrail2"]})"), kNow),
                  "session audience mismatch");
  expect_rejected(verifier.verify(hs_token(base + R"([]})"), kNow), "session audience mismatch");
  expect_rejected(verifier.verify(hs_token(base + R"(7})"), kNow), "session audience mismatch");
}

TEST(JwtHs256Test, BadSignatureRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string token = mint_hs256_session(hs_config(), "mem_1", "a@example.test", kNow, 900);
  std::string tampered = token;
  const std::size_t position = token.rfind('.') + 5;
  tampered[position] = tampered[position] == 'A' ? 'B' : 'A';
  expect_rejected(verifier.verify(tampered, kNow), "session signature invalid");

  expect_rejected(verifier.verify(hs_token(R"({"alg":"HS256"})", payload_json(),
                                           "another-secret-0123456789abcdefgh"),
                                  kNow),
                  "session signature invalid");
}

TEST(JwtHs256Test, TamperedPayloadRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string token = mint_hs256_session(hs_config(), "mem_1", "a@example.test", kNow, 900);
  const std::size_t first_dot = token.find('.');
  const std::size_t second_dot = token.rfind('.');
  const std::string forged_payload = base64url_encode(payload_json());
  const std::string forged =
      token.substr(0, first_dot + 1) + forged_payload + token.substr(second_dot);
  expect_rejected(verifier.verify(forged, kNow), "session signature invalid");
}

TEST(JwtHs256Test, AlgorithmNoneRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string unsigned_token = base64url_encode(R"({"alg":"none","typ":"JWT"})") + "." +
                                     base64url_encode(payload_json()) + ".";
  expect_rejected(verifier.verify(unsigned_token, kNow), "session algorithm not accepted");
  expect_rejected(verifier.verify(hs_token(R"({"alg":"hs256"})", payload_json()), kNow),
                  "session algorithm not accepted");
  expect_rejected(verifier.verify(hs_token(R"({"typ":"JWT"})", payload_json()), kNow),
                  "session algorithm not accepted");
}

TEST(JwtHs256Test, MissingClaimsRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string no_sub = R"({"iss":"https://idp.example.test","aud":"payrail",)"
                             R"("email":"a@example.test","exp":1700000900})";
  const std::string empty_sub = R"({"iss":"https://idp.example.test","aud":"payrail",)"
                                R"("sub":"","email":"a@example.test","exp":1700000900})";
  const std::string no_email = R"({"iss":"https://idp.example.test","aud":"payrail",)"
                               R"("sub":"mem_1","exp":1700000900})";
  const std::string no_exp = R"({"iss":"https://idp.example.test","aud":"payrail",)"
                             R"("sub":"mem_1","email":"a@example.test"})";
  expect_rejected(verifier.verify(hs_token(no_sub), kNow), "session subject invalid");
  expect_rejected(verifier.verify(hs_token(empty_sub), kNow), "session subject invalid");
  expect_rejected(verifier.verify(hs_token(no_email), kNow), "session email invalid");
  expect_rejected(verifier.verify(hs_token(no_exp), kNow), "malformed session token");
}

TEST(JwtHs256Test, ClaimLengthLimits) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const auto token_with = [](const std::string& subject, const std::string& email) {
    return hs_token(R"({"iss":"https://idp.example.test","aud":"payrail","sub":")" + subject +
                    R"(","email":")" + email + R"(","exp":1700000900})");
  };
  EXPECT_TRUE(verifier.verify(token_with(std::string(255, 's'), "a@example.test"), kNow).ok());
  expect_rejected(verifier.verify(token_with(std::string(256, 's'), "a@example.test"), kNow),
                  "session subject invalid");
  EXPECT_TRUE(verifier.verify(token_with("mem_1", std::string(320, 'e')), kNow).ok());
  expect_rejected(verifier.verify(token_with("mem_1", std::string(321, 'e')), kNow),
                  "session email invalid");
  expect_rejected(verifier.verify(token_with("mem\\u0000x", "a@example.test"), kNow),
                  "session subject invalid");
}

TEST(JwtHs256Test, ClaimsAreCleanTextCountedInCharacters) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const auto token_with = [](const std::string& subject, const std::string& email) {
    return hs_token(R"({"iss":"https://idp.example.test","aud":"payrail","sub":")" + subject +
                    R"(","email":")" + email + R"(","exp":1700000900})");
  };
  const auto lone_surrogate = verifier.verify(token_with("m\\udc00", "a@example.test"), kNow);
  expect_rejected(lone_surrogate, "session subject invalid");
  EXPECT_EQ(lone_surrogate.error().param, "sub");
  const auto bad_email = verifier.verify(token_with("m", "a\\udfff@example.test"), kNow);
  expect_rejected(bad_email, "session email invalid");
  EXPECT_EQ(bad_email.error().param, "email");
  expect_rejected(verifier.verify(token_with("m", "a\xFF@example.test"), kNow));
  // Control characters, DEL and C1 (U+0085) included, have no place in an identity.
  for (const auto* control : {"\\u001f", "\\u007f", "\\u0085", "\\u009b"}) {
    const auto rejected = verifier.verify(token_with(std::string("m") + control, "a@x.test"), kNow);
    expect_rejected(rejected, "session subject invalid");
    EXPECT_EQ(rejected.error().param, "sub") << control;
  }
  // 255 two-byte characters are 510 bytes and still fit.
  std::string accented;
  for (int i = 0; i < 255; ++i) accented += "\xC3\xA9";
  EXPECT_TRUE(verifier.verify(token_with(accented, "a@example.test"), kNow).ok());
  expect_rejected(verifier.verify(token_with(accented + "x", "a@example.test"), kNow));
  // A NUL byte ends RapidJSON's input; it must not hide what follows.
  const std::string claims = R"({"iss":"https://idp.example.test","aud":"payrail","sub":"m",)"
                             R"("email":"a@example.test","exp":1700000900})";
  expect_rejected(verifier.verify(hs_token(claims + std::string(1, '\0') + "junk"), kNow));
}

TEST(JwtHs256Test, NumericClaimsParsedSafely) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string prefix = R"({"iss":"https://idp.example.test","aud":"payrail","sub":"m",)"
                             R"("email":"a@example.test","exp":)";
  const auto fractional = verifier.verify(hs_token(prefix + "1700000900.75}"), kNow);
  ASSERT_TRUE(fractional.ok());
  EXPECT_EQ(fractional->expires_at_unix, 1700000900);
  EXPECT_TRUE(verifier.verify(hs_token(prefix + "1.7000009e9}"), kNow).ok());
  for (const char* bad_exp : {"1e300", "99999999999999999999", "18446744073709551615", "-1",
                              "\"1700000900\"", "null", "true"}) {
    expect_rejected(verifier.verify(hs_token(prefix + bad_exp + "}"), kNow),
                    "malformed session token");
  }
  expect_rejected(verifier.verify(hs_token(payload_json(R"(,"nbf":1e300)")), kNow),
                  "malformed session token");
}

TEST(JwtHs256Test, DuplicateMembersRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  expect_rejected(verifier.verify(hs_token(payload_json(R"(,"sub":"mem_admin")")), kNow),
                  "malformed session token");
  expect_rejected(
      verifier.verify(hs_token(R"({"alg":"HS256","alg":"none"})", payload_json()), kNow),
      "malformed session token");
}

TEST(JwtHs256Test, CriticalHeaderRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  expect_rejected(
      verifier.verify(hs_token(R"({"alg":"HS256","crit":["b64"],"b64":false})", payload_json()),
                      kNow),
      "malformed session token");
}

TEST(JwtHs256Test, MalformedTokensRejected) {
  const JwtVerifier verifier = make_verifier(hs_config());
  const std::string good = mint_hs256_session(hs_config(), "mem_1", "a@example.test", kNow, 900);
  const std::string header = good.substr(0, good.find('.'));
  const std::string signature = good.substr(good.rfind('.') + 1);
  const std::string payload = base64url_encode(payload_json());
  const std::vector<std::string> tokens = {
      "",
      ".",
      "..",
      header + "." + payload,
      header + "." + payload + "." + signature + "." + signature,
      header + ".!!!." + signature,
      "e30=." + payload + "." + signature,
      base64url_encode("not json") + "." + payload + "." + signature,
      base64url_encode("[]") + "." + payload + "." + signature,
      base64url_encode(R"({"alg":"HS256"} trailing)") + "." + payload + "." + signature,
      hs_token("not json"),
      hs_token("[1,2]"),
      hs_token(std::string(1000, '[')),
      good.substr(0, good.find('.')) + "." + std::string(9 * 1024, 'A') + "." + signature,
  };
  for (const std::string& token : tokens) {
    const auto result = verifier.verify(token, kNow);
    ASSERT_FALSE(result.ok()) << token.substr(0, 80);
    EXPECT_EQ(result.error().code, model::ErrorCode::session_invalid);
  }
  expect_rejected(verifier.verify(std::string(9 * 1024, 'A'), kNow), "malformed session token");
}

TEST(JwtConfigTest, CreateRejectsBadConfigs) {
  JwtConfig both = hs_config();
  both.jwks_file_path = "/nonexistent/jwks.json";
  EXPECT_FALSE(JwtVerifier::create(both).ok());
  JwtConfig neither = hs_config();
  neither.hs256_secret.reset();
  EXPECT_FALSE(JwtVerifier::create(neither).ok());
  JwtConfig short_secret = hs_config();
  short_secret.hs256_secret = "short";
  EXPECT_FALSE(JwtVerifier::create(short_secret).ok());
  JwtConfig no_issuer = hs_config();
  no_issuer.issuer.clear();
  EXPECT_FALSE(JwtVerifier::create(no_issuer).ok());
  JwtConfig negative_leeway = hs_config();
  negative_leeway.leeway_seconds = -1;
  EXPECT_FALSE(JwtVerifier::create(negative_leeway).ok());
  JwtConfig missing_file = hs_config();
  missing_file.hs256_secret.reset();
  missing_file.jwks_file_path = "/nonexistent/jwks.json";
  const auto result = JwtVerifier::create(missing_file);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, model::ErrorCode::internal_error);
}

TEST(JwtConfigTest, SecretNeverInErrors) {
  JwtConfig both = hs_config();
  both.jwks_file_path = "/nonexistent/jwks.json";
  const auto result = JwtVerifier::create(both);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message.find(kSecret), std::string::npos);
}

// --- RS256 -----------------------------------------------------------------------------------

struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyDeleter>;

Key generate_rsa_key(unsigned bits) {
  Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(bits)));
  EXPECT_NE(key, nullptr);
  return key;
}

std::string bignum_param(EVP_PKEY* key, const char* name) {
  BIGNUM* number = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key, name, &number), 1);
  std::string bytes(static_cast<std::size_t>(BN_num_bytes(number)), '\0');
  BN_bn2bin(number, reinterpret_cast<unsigned char*>(bytes.data()));
  BN_free(number);
  return bytes;
}

std::string jwk_json(EVP_PKEY* key, std::string_view key_id) {
  return R"({"kty":"RSA","kid":")" + std::string(key_id) + R"(","use":"sig","alg":"RS256","n":")" +
         base64url_encode(bignum_param(key, OSSL_PKEY_PARAM_RSA_N)) + R"(","e":")" +
         base64url_encode(bignum_param(key, OSSL_PKEY_PARAM_RSA_E)) + R"("})";
}

std::string public_key_pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  EXPECT_EQ(PEM_write_bio_PUBKEY(bio, key), 1);
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<std::size_t>(length));
  BIO_free(bio);
  return pem;
}

std::string rs_token(EVP_PKEY* key, std::string_view header, std::string_view payload) {
  const std::string signing_input = base64url_encode(header) + "." + base64url_encode(payload);
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  std::size_t length = 0;
  const auto* input = reinterpret_cast<const unsigned char*>(signing_input.data());
  EXPECT_EQ(EVP_DigestSignInit(context, nullptr, EVP_sha256(), nullptr, key), 1);
  EXPECT_EQ(EVP_DigestSign(context, nullptr, &length, input, signing_input.size()), 1);
  std::string signature(length, '\0');
  EXPECT_EQ(EVP_DigestSign(context, reinterpret_cast<unsigned char*>(signature.data()), &length,
                           input, signing_input.size()),
            1);
  EVP_MD_CTX_free(context);
  signature.resize(length);
  return signing_input + "." + base64url_encode(signature);
}

class JwtRs256Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                           ("payrail-jwt-test-" + crypto::random_base62(12)));
    std::filesystem::create_directories(*directory_);
    trusted_key_ = generate_rsa_key(2048).release();
    untrusted_key_ = generate_rsa_key(2048).release();
    write_file("jwks.json", R"({"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"},)" +
                                jwk_json(trusted_key_, "key-1") + "]}");
  }

  static void TearDownTestSuite() {
    EVP_PKEY_free(trusted_key_);
    EVP_PKEY_free(untrusted_key_);
    std::filesystem::remove_all(*directory_);
    delete directory_;
  }

  static std::string write_file(const std::string& name, const std::string& content) {
    const std::filesystem::path path = *directory_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }

  static JwtConfig rs_config(const std::string& jwks_name = "jwks.json") {
    JwtConfig config;
    config.issuer = kIssuer;
    config.audience = kAudience;
    config.jwks_file_path = (*directory_ / jwks_name).string();
    return config;
  }

  static inline std::filesystem::path* directory_ = nullptr;
  static inline EVP_PKEY* trusted_key_ = nullptr;
  static inline EVP_PKEY* untrusted_key_ = nullptr;
};

TEST_F(JwtRs256Test, ValidTokenVerifies) {
  const JwtVerifier verifier = make_verifier(rs_config());
  EXPECT_EQ(verifier.algorithm(), JwtAlgorithm::rs256);
  const auto with_kid = verifier.verify(
      rs_token(trusted_key_, R"({"alg":"RS256","typ":"JWT","kid":"key-1"})", payload_json()), kNow);
  ASSERT_TRUE(with_kid.ok()) << with_kid.error().message;
  EXPECT_EQ(with_kid->subject, "mem_123");
  EXPECT_EQ(with_kid->email, "ada@example.test");
  EXPECT_EQ(with_kid->expires_at_unix, 1700000900);
  EXPECT_TRUE(
      verifier.verify(rs_token(trusted_key_, R"({"alg":"RS256"})", payload_json()), kNow).ok());
}

TEST_F(JwtRs256Test, KeyNotInJwksRejected) {
  const JwtVerifier verifier = make_verifier(rs_config());
  expect_rejected(
      verifier.verify(rs_token(untrusted_key_, R"({"alg":"RS256"})", payload_json()), kNow),
      "session signature invalid");
  expect_rejected(
      verifier.verify(rs_token(untrusted_key_, R"({"alg":"RS256","kid":"key-1"})", payload_json()),
                      kNow),
      "session signature invalid");
  expect_rejected(
      verifier.verify(rs_token(trusted_key_, R"({"alg":"RS256","kid":"key-2"})", payload_json()),
                      kNow),
      "session signing key unknown");
}

TEST_F(JwtRs256Test, HsTokenSignedWithPublicKeyPemRejected) {
  const JwtVerifier verifier = make_verifier(rs_config());
  const std::string pem = public_key_pem(trusted_key_);
  expect_rejected(verifier.verify(hs_token(R"({"alg":"HS256"})", payload_json(), pem), kNow),
                  "session algorithm not accepted");
  expect_rejected(
      verifier.verify(hs_token(R"({"alg":"HS256","kid":"key-1"})", payload_json(), pem), kNow),
      "session algorithm not accepted");
}

TEST_F(JwtRs256Test, HsVerifierRejectsRsToken) {
  const JwtVerifier verifier = make_verifier(hs_config());
  expect_rejected(
      verifier.verify(rs_token(trusted_key_, R"({"alg":"RS256"})", payload_json()), kNow),
      "session algorithm not accepted");
}

TEST_F(JwtRs256Test, ClaimsCheckedAfterSignature) {
  const JwtVerifier verifier = make_verifier(rs_config());
  expect_rejected(
      verifier.verify(rs_token(trusted_key_, R"({"alg":"RS256"})", payload_json()), kNow + 1000),
      "session expired");
}

TEST_F(JwtRs256Test, JwksWithWeakOrMalformedKeysRejected) {
  const Key weak = generate_rsa_key(1024);
  JwtConfig weak_config = rs_config("weak.json");
  write_file("weak.json", R"({"keys":[)" + jwk_json(weak.get(), "weak") + "]}");
  EXPECT_FALSE(JwtVerifier::create(weak_config).ok());

  write_file("bad-n.json", R"({"keys":[{"kty":"RSA","n":"!!","e":"AQAB"}]})");
  EXPECT_FALSE(JwtVerifier::create(rs_config("bad-n.json")).ok());
  write_file("empty.json", R"({"keys":[]})");
  EXPECT_FALSE(JwtVerifier::create(rs_config("empty.json")).ok());
  write_file("not-json.json", "keys");
  EXPECT_FALSE(JwtVerifier::create(rs_config("not-json.json")).ok());
  // An encryption-only key is skipped, leaving no signing keys.
  std::string encryption_key = jwk_json(trusted_key_, "enc");
  encryption_key.replace(encryption_key.find(R"("sig")"), 5, R"("enc")");
  write_file("enc-only.json", R"({"keys":[)" + encryption_key + "]}");
  EXPECT_FALSE(JwtVerifier::create(rs_config("enc-only.json")).ok());
}

TEST_F(JwtRs256Test, CopiesVerifyConcurrently) {
  const JwtVerifier original = make_verifier(rs_config());
  const JwtVerifier copy = original;
  const std::string token =
      rs_token(trusted_key_, R"({"alg":"RS256","kid":"key-1"})", payload_json());
  const std::string forged =
      rs_token(untrusted_key_, R"({"alg":"RS256","kid":"key-1"})", payload_json());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int index = 0; index < 4; ++index) {
    const JwtVerifier& verifier = index % 2 == 0 ? original : copy;
    threads.emplace_back([&verifier, &token, &forged, &failures] {
      for (int round = 0; round < 25; ++round) {
        if (!verifier.verify(token, kNow).ok()) ++failures;
        if (verifier.verify(forged, kNow).ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace payrail::infra::auth
