#include "infra/plumbing/auth/jwt.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <utility>

#include "infra/plumbing/crypto/crypto.h"
#include "schemas/model/common/text.h"

namespace payrail::infra::auth {
namespace {

using model::Error;
using model::ErrorCode;
using model::Result;
using RsaKey = detail::RsaVerificationKey;

constexpr std::string_view kHs256 = "HS256";
constexpr std::string_view kRs256 = "RS256";
constexpr std::string_view kMintedHeader = R"({"alg":"HS256","typ":"JWT"})";
constexpr std::size_t kMaxSubjectCharacters = 255;
constexpr std::size_t kMaxEmailCharacters = 320;
constexpr std::size_t kMinHs256SecretBytes = 32;
constexpr std::int64_t kMaxLeewaySeconds = 3600;
// 9999-12-31T23:59:59Z. Later or negative dates are malformed, which also keeps
// `date +/- leeway` far from overflow whatever the token says.
constexpr std::int64_t kMaxNumericDate = 253402300799;
constexpr std::size_t kMaxJwksFileBytes = 1024 * 1024;
constexpr int kMinRsaModulusBits = 2048;
constexpr int kMaxRsaModulusBits = 16384;
// Larger exponents only make verification slower; no real key uses one.
constexpr int kMaxRsaExponentBits = 64;
constexpr unsigned kParseFlags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;

struct BignumDeleter {
  void operator()(BIGNUM* number) const { BN_free(number); }
};
struct ParamBuilderDeleter {
  void operator()(OSSL_PARAM_BLD* builder) const { OSSL_PARAM_BLD_free(builder); }
};
struct ParamsDeleter {
  void operator()(OSSL_PARAM* params) const { OSSL_PARAM_free(params); }
};
struct KeyContextDeleter {
  void operator()(EVP_PKEY_CTX* context) const { EVP_PKEY_CTX_free(context); }
};
struct DigestContextDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
using Bignum = std::unique_ptr<BIGNUM, BignumDeleter>;
using KeyContext = std::unique_ptr<EVP_PKEY_CTX, KeyContextDeleter>;

Error session_error(std::string message) {
  return Error::make(ErrorCode::session_invalid, std::move(message));
}

Error malformed() {
  return session_error("malformed session token");
}

Error config_error(std::string message) {
  return Error::make(ErrorCode::internal_error, std::move(message));
}

const unsigned char* bytes(std::string_view data) {
  return reinterpret_cast<const unsigned char*>(data.data());
}

std::string_view string_of(const rapidjson::Value& value) {
  return {value.GetString(), value.GetStringLength()};
}

// RapidJSON keeps the first of duplicated names; other parsers keep the last. Refusing
// duplicates removes any ambiguity about which claim was meant.
bool has_duplicate_members(const rapidjson::Value& object) {
  std::set<std::string_view> names;
  for (const auto& member : object.GetObject()) {
    if (!names.insert(string_of(member.name)).second) return true;
  }
  return false;
}

bool parse_object(std::string_view text, std::size_t max_bytes, rapidjson::Document& document) {
  // RapidJSON stops at a NUL byte; JSON text never contains one.
  if (text.size() > max_bytes || text.find('\0') != std::string_view::npos) return false;
  document.Parse<kParseFlags>(text.data(), text.size());
  return !document.HasParseError() && document.IsObject() && !has_duplicate_members(document);
}

const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view name) {
  const auto found = object.FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  return found == object.MemberEnd() ? nullptr : &found->value;
}

enum class Rounding { down, up };

// NumericDate (RFC 7519): seconds, integral or fractional. Callers round towards rejection:
// exp down, nbf up.
std::optional<std::int64_t> numeric_date(const rapidjson::Value& value, Rounding rounding) {
  if (value.IsInt64()) {
    const std::int64_t seconds = value.GetInt64();
    if (seconds < 0 || seconds > kMaxNumericDate) return std::nullopt;
    return seconds;
  }
  // Integers beyond int64 are neither Int64 nor Double and fall through to nullopt.
  if (!value.IsDouble()) return std::nullopt;
  const double seconds = value.GetDouble();
  if (!std::isfinite(seconds) || seconds < 0 || seconds > static_cast<double>(kMaxNumericDate)) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(rounding == Rounding::down ? std::floor(seconds)
                                                              : std::ceil(seconds));
}

bool audience_matches(const rapidjson::Value* audience_claim, std::string_view audience) {
  if (audience_claim == nullptr) return false;
  if (audience_claim->IsString()) return string_of(*audience_claim) == audience;
  if (!audience_claim->IsArray()) return false;
  for (const auto& entry : audience_claim->GetArray()) {
    if (entry.IsString() && string_of(entry) == audience) return true;
  }
  return false;
}

// Identity strings end up in logs and database rows: they are checked like every string a client
// sends (model/text.h: UTF-8 without NUL, lengths in characters), and control characters have
// no place there either. A bad claim makes the session invalid; `param` names a claim that is
// present but not acceptable.
Result<std::string> required_text(const rapidjson::Value& object, std::string_view name,
                                  std::string_view label, std::size_t max_characters) {
  auto invalid = session_error("session " + std::string(label) + " invalid");
  const rapidjson::Value* value = find_member(object, name);
  if (value == nullptr) return invalid;  // missing: nothing to name
  invalid.param = std::string(name);
  if (!value->IsString()) return invalid;
  const std::string_view text = string_of(*value);
  if (!model::text::is_clean(text)) return invalid;
  const auto characters = model::text::character_count(text);
  if (characters == 0 || characters > max_characters) return invalid;
  if (model::text::has_control(text)) return invalid;
  return std::string(text);
}

struct Segments {
  std::string_view header;
  std::string_view payload;
  std::string_view signature;
  std::string_view signing_input;
};

std::optional<Segments> split_token(std::string_view token) {
  const std::size_t first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  Segments segments{token.substr(0, first), token.substr(first + 1, second - first - 1),
                    token.substr(second + 1), token.substr(0, second)};
  if (segments.header.empty() || segments.payload.empty()) return std::nullopt;
  return segments;
}

// Returns the header's kid, if any, once the header is acceptable for this verifier.
Result<std::optional<std::string>> read_header(const rapidjson::Value& header,
                                               std::string_view expected_algorithm) {
  const rapidjson::Value* algorithm = find_member(header, "alg");
  if (algorithm == nullptr || !algorithm->IsString() ||
      string_of(*algorithm) != expected_algorithm) {
    return session_error("session algorithm not accepted");
  }
  // No JWS extensions are understood, so any critical one must fail (RFC 7515 section 4.1.11).
  if (find_member(header, "crit") != nullptr) return malformed();
  const rapidjson::Value* key_id = find_member(header, "kid");
  if (key_id == nullptr) return std::optional<std::string>();
  if (!key_id->IsString()) return malformed();
  return std::optional<std::string>(string_of(*key_id));
}

struct ClaimRules {
  std::string_view issuer;
  std::string_view audience;
  std::int64_t leeway_seconds = 0;
};

Result<SessionClaims> read_claims(const rapidjson::Value& payload, const ClaimRules& rules,
                                  std::int64_t now_unix) {
  const rapidjson::Value* expiry_claim = find_member(payload, "exp");
  if (expiry_claim == nullptr) return malformed();
  const auto expires_at = numeric_date(*expiry_claim, Rounding::down);
  if (!expires_at) return malformed();
  if (now_unix > *expires_at + rules.leeway_seconds) return session_error("session expired");

  if (const rapidjson::Value* not_before_claim = find_member(payload, "nbf")) {
    const auto not_before = numeric_date(*not_before_claim, Rounding::up);
    if (!not_before) return malformed();
    if (*not_before - rules.leeway_seconds > now_unix) {
      return session_error("session not yet valid");
    }
  }
  const rapidjson::Value* issuer = find_member(payload, "iss");
  if (issuer == nullptr || !issuer->IsString() || string_of(*issuer) != rules.issuer) {
    return session_error("session issuer mismatch");
  }
  if (!audience_matches(find_member(payload, "aud"), rules.audience)) {
    return session_error("session audience mismatch");
  }
  auto subject = required_text(payload, "sub", "subject", kMaxSubjectCharacters);
  if (!subject.ok()) return std::move(subject).error();
  auto email = required_text(payload, "email", "email", kMaxEmailCharacters);
  if (!email.ok()) return std::move(email).error();
  SessionClaims claims{std::move(subject).value(), std::move(email).value(), *expires_at, {}};
  if (const rapidjson::Value* nonce = find_member(payload, "nonce")) {
    if (!nonce->IsString()) return malformed();
    claims.nonce = std::string(string_of(*nonce));
  }
  return claims;
}

bool rsa_signature_valid(EVP_PKEY* key, std::string_view signing_input,
                         std::string_view signature) {
  if (signature.size() != static_cast<std::size_t>(EVP_PKEY_get_size(key))) return false;
  std::unique_ptr<EVP_MD_CTX, DigestContextDeleter> context(EVP_MD_CTX_new());
  EVP_PKEY_CTX* key_context = nullptr;  // Owned by context.
  // RS256 is PKCS#1 v1.5; set explicitly rather than relying on the provider default.
  const bool valid =
      context != nullptr &&
      EVP_DigestVerifyInit(context.get(), &key_context, EVP_sha256(), nullptr, key) == 1 &&
      EVP_PKEY_CTX_set_rsa_padding(key_context, RSA_PKCS1_PADDING) > 0 &&
      EVP_DigestVerify(context.get(), bytes(signature), signature.size(), bytes(signing_input),
                       signing_input.size()) == 1;
  // Failed verifications queue OpenSSL errors on this thread; leave nothing for unrelated code.
  if (!valid) ERR_clear_error();
  return valid;
}

Result<std::shared_ptr<EVP_PKEY>> rsa_key_from_components(const Bignum& modulus,
                                                          const Bignum& exponent) {
  const Error failure = config_error("JWKS RSA key could not be loaded");
  std::unique_ptr<OSSL_PARAM_BLD, ParamBuilderDeleter> builder(OSSL_PARAM_BLD_new());
  if (!builder ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get()) != 1) {
    return failure;
  }
  std::unique_ptr<OSSL_PARAM, ParamsDeleter> params(OSSL_PARAM_BLD_to_param(builder.get()));
  KeyContext context(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw_key = nullptr;
  if (!params || !context || EVP_PKEY_fromdata_init(context.get()) != 1 ||
      EVP_PKEY_fromdata(context.get(), &raw_key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1 ||
      raw_key == nullptr) {
    return failure;
  }
  std::shared_ptr<EVP_PKEY> key(raw_key, EVP_PKEY_free);
  KeyContext check_context(EVP_PKEY_CTX_new_from_pkey(nullptr, key.get(), nullptr));
  if (!check_context || EVP_PKEY_public_check(check_context.get()) != 1) return failure;
  if (EVP_PKEY_get_bits(key.get()) < kMinRsaModulusBits) return failure;
  return key;
}

Result<std::shared_ptr<EVP_PKEY>> rsa_public_key(std::string_view modulus_bytes,
                                                 std::string_view exponent_bytes) {
  Bignum modulus(BN_bin2bn(bytes(modulus_bytes), static_cast<int>(modulus_bytes.size()), nullptr));
  Bignum exponent(
      BN_bin2bn(bytes(exponent_bytes), static_cast<int>(exponent_bytes.size()), nullptr));
  if (!modulus || !exponent) return config_error("JWKS RSA key could not be loaded");
  const int modulus_bits = BN_num_bits(modulus.get());
  if (modulus_bits < kMinRsaModulusBits) {
    return config_error("JWKS RSA key is shorter than 2048 bits");
  }
  if (modulus_bits > kMaxRsaModulusBits || BN_num_bits(exponent.get()) > kMaxRsaExponentBits) {
    return config_error("JWKS RSA key has unsupported size");
  }
  auto key = rsa_key_from_components(modulus, exponent);
  ERR_clear_error();
  return key;
}

std::optional<std::string> decoded_member(const rapidjson::Value& object, std::string_view name) {
  const rapidjson::Value* value = find_member(object, name);
  if (value == nullptr || !value->IsString()) return std::nullopt;
  return crypto::base64url_decode(string_of(*value));
}

// nullopt means the entry is not an RS256 signing key (another key type, `use` or `alg`) and is
// skipped; an RSA signing entry that cannot be loaded is an error.
Result<std::optional<RsaKey>> parse_jwk(const rapidjson::Value& entry) {
  if (!entry.IsObject()) return config_error("JWKS entry is not an object");
  const rapidjson::Value* key_type = find_member(entry, "kty");
  if (key_type == nullptr || !key_type->IsString()) return config_error("JWKS entry lacks kty");
  if (string_of(*key_type) != "RSA") return std::optional<RsaKey>();
  const rapidjson::Value* use = find_member(entry, "use");
  if (use != nullptr && (!use->IsString() || string_of(*use) != "sig")) {
    return std::optional<RsaKey>();
  }
  const rapidjson::Value* algorithm = find_member(entry, "alg");
  if (algorithm != nullptr && (!algorithm->IsString() || string_of(*algorithm) != kRs256)) {
    return std::optional<RsaKey>();
  }
  RsaKey parsed;
  if (const rapidjson::Value* key_id = find_member(entry, "kid")) {
    if (!key_id->IsString()) return config_error("JWKS entry has a non-string kid");
    parsed.key_id = std::string(string_of(*key_id));
  }
  const auto modulus = decoded_member(entry, "n");
  const auto exponent = decoded_member(entry, "e");
  if (!modulus || !exponent || modulus->empty() || exponent->empty()) {
    return config_error("JWKS RSA entry has invalid n or e");
  }
  auto key = rsa_public_key(*modulus, *exponent);
  if (!key.ok()) return std::move(key).error();
  parsed.key = std::move(key).value();
  return std::optional<RsaKey>(std::move(parsed));
}

Result<std::string> read_small_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream input(path, std::ios::binary);
  if (!input) return config_error("cannot open JWKS file " + path);
  std::string content(max_bytes + 1, '\0');
  input.read(content.data(), static_cast<std::streamsize>(content.size()));
  if (input.bad()) return config_error("cannot read JWKS file " + path);
  content.resize(static_cast<std::size_t>(input.gcount()));
  if (content.size() > max_bytes) return config_error("JWKS file is too large: " + path);
  return content;
}

Result<std::vector<RsaKey>> load_jwks(const std::string& path) {
  auto content = read_small_file(path, kMaxJwksFileBytes);
  if (!content.ok()) return std::move(content).error();
  rapidjson::Document document;
  if (!parse_object(*content, kMaxJwksFileBytes, document)) {
    return config_error("JWKS file is not a JSON object: " + path);
  }
  const rapidjson::Value* entries = find_member(document, "keys");
  if (entries == nullptr || !entries->IsArray()) {
    return config_error("JWKS file has no keys array: " + path);
  }
  std::vector<RsaKey> keys;
  for (const auto& entry : entries->GetArray()) {
    auto parsed = parse_jwk(entry);
    if (!parsed.ok()) return std::move(parsed).error();
    if (parsed->has_value()) keys.push_back(std::move(**parsed));
  }
  if (keys.empty()) return config_error("JWKS file has no RS256 signing keys: " + path);
  return keys;
}

}  // namespace

Result<JwtVerifier> JwtVerifier::create(const JwtConfig& config) {
  if (config.hs256_secret.has_value() == config.jwks_file_path.has_value()) {
    return config_error("exactly one of the HS256 secret and the JWKS file must be configured");
  }
  if (config.issuer.empty() || config.audience.empty()) {
    return config_error("session issuer and audience must be configured");
  }
  if (config.leeway_seconds < 0 || config.leeway_seconds > kMaxLeewaySeconds) {
    return config_error("session leeway must be between 0 and 3600 seconds");
  }
  JwtVerifier verifier;
  verifier.issuer_ = config.issuer;
  verifier.audience_ = config.audience;
  verifier.leeway_seconds_ = config.leeway_seconds;
  if (config.hs256_secret) {
    if (config.hs256_secret->size() < kMinHs256SecretBytes) {
      return config_error("HS256 secret must be at least 32 bytes");
    }
    verifier.algorithm_ = JwtAlgorithm::hs256;
    verifier.hs256_secret_ = *config.hs256_secret;
    return verifier;
  }
  auto keys = load_jwks(*config.jwks_file_path);
  if (!keys.ok()) return std::move(keys).error();
  verifier.algorithm_ = JwtAlgorithm::rs256;
  verifier.rsa_keys_ = std::move(keys).value();
  return verifier;
}

model::Status JwtVerifier::check_signature(const std::optional<std::string>& key_id,
                                           std::string_view signing_input,
                                           std::string_view signature) const {
  if (algorithm_ == JwtAlgorithm::hs256) {
    const std::string expected = crypto::hmac_sha256(hs256_secret_, signing_input);
    if (crypto::constant_time_equals(expected, signature)) return model::ok_status();
    return session_error("session signature invalid");
  }
  bool key_known = false;
  for (const RsaKey& candidate : rsa_keys_) {
    if (key_id && candidate.key_id != key_id) continue;
    key_known = true;
    if (rsa_signature_valid(candidate.key.get(), signing_input, signature)) {
      return model::ok_status();
    }
  }
  return session_error(key_known ? "session signature invalid" : "session signing key unknown");
}

Result<SessionClaims> JwtVerifier::verify(std::string_view token, std::int64_t now_unix) const {
  if (token.size() > kMaxSessionTokenBytes) return malformed();
  const auto segments = split_token(token);
  if (!segments) return malformed();
  const auto header_json = crypto::base64url_decode(segments->header);
  const auto signature = crypto::base64url_decode(segments->signature);
  if (!header_json || !signature) return malformed();

  rapidjson::Document header;
  if (!parse_object(*header_json, kMaxSessionTokenBytes, header)) return malformed();
  const auto key_id = read_header(header, algorithm_ == JwtAlgorithm::hs256 ? kHs256 : kRs256);
  if (!key_id.ok()) return key_id.error();
  // The payload is only parsed once it is known to come from the identity provider.
  const model::Status signature_status =
      check_signature(key_id.value(), segments->signing_input, *signature);
  if (!signature_status.ok()) return signature_status.error();

  const auto payload_json = crypto::base64url_decode(segments->payload);
  rapidjson::Document payload;
  if (!payload_json || !parse_object(*payload_json, kMaxSessionTokenBytes, payload)) {
    return malformed();
  }
  return read_claims(payload, ClaimRules{issuer_, audience_, leeway_seconds_}, now_unix);
}

std::string mint_hs256_session(const JwtConfig& config, std::string_view subject,
                               std::string_view email, std::int64_t now_unix,
                               std::int64_t ttl_seconds) {
  if (!config.hs256_secret) return {};
  std::int64_t expires_at = 0;
  if (__builtin_add_overflow(now_unix, ttl_seconds, &expires_at)) {
    expires_at = std::numeric_limits<std::int64_t>::max();
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  const auto write_string = [&writer](std::string_view key, std::string_view value) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  };
  writer.StartObject();
  write_string("iss", config.issuer);
  write_string("aud", config.audience);
  write_string("sub", subject);
  write_string("email", email);
  writer.Key("iat");
  writer.Int64(now_unix);
  writer.Key("nbf");
  writer.Int64(now_unix);
  writer.Key("exp");
  writer.Int64(expires_at);
  writer.EndObject();

  const std::string signing_input =
      crypto::base64url_encode(kMintedHeader) + "." +
      crypto::base64url_encode(std::string_view(buffer.GetString(), buffer.GetSize()));
  return signing_input + "." +
         crypto::base64url_encode(crypto::hmac_sha256(*config.hs256_secret, signing_input));
}

}  // namespace payrail::infra::auth
