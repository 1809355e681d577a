#include "tests/support/tokens.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <atomic>
#include <ctime>
#include <map>
#include <stdexcept>

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::testing {
namespace {

using infra::crypto::base64url_encode;

EVP_PKEY* as_key(const std::shared_ptr<void>& key) {
  return static_cast<EVP_PKEY*>(key.get());
}

std::string big_number(EVP_PKEY* key, const char* name) {
  BIGNUM* number = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &number) != 1) throw std::runtime_error("RSA parameter");
  std::string bytes(static_cast<std::size_t>(BN_num_bytes(number)), '\0');
  BN_bn2bin(number, reinterpret_cast<unsigned char*>(bytes.data()));
  BN_free(number);
  return bytes;
}

// The error type of each code, copied from the contract's tables (docs/api.md "Errors"), not
// from the implementation.
const std::map<std::string, std::string, std::less<>>& contract_types() {
  static const std::map<std::string, std::string, std::less<>> types{
      {"bad_request", "invalid_request_error"},
      {"method_not_allowed", "invalid_request_error"},
      {"resource_missing", "invalid_request_error"},
      {"not_found", "invalid_request_error"},
      {"resource_limit_reached", "invalid_request_error"},
      {"idempotency_conflict", "invalid_request_error"},
      {"api_key_missing", "authentication_error"},
      {"api_key_invalid", "authentication_error"},
      {"session_invalid", "authentication_error"},
      {"scope_insufficient", "permission_error"},
      {"org_suspended", "permission_error"},
      {"session_required", "permission_error"},
      {"kyb_required", "compliance_error"},
      {"rate_limited", "rate_limit_error"},
  };
  return types;
}

::testing::AssertionResult check_request_id(const HttpResult& response) {
  const auto request_id = response.header("request-id");
  if (request_id.rfind("req_", 0) != 0 || request_id.size() <= 4) {
    return ::testing::AssertionFailure()
           << "Request-Id header is '" << request_id << "'; body: " << response.body;
  }
  return ::testing::AssertionSuccess();
}

std::string string_member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject() || !object.HasMember(name) || !object[name].IsString()) return "<absent>";
  return object[name].GetString();
}

}  // namespace

SessionClaimSet valid_claims() {
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  SessionClaimSet claims;
  claims.email = unique_email("session");
  claims.subject = "user|" + *claims.email;
  claims.issued_at = now;
  claims.not_before = now;
  claims.expires_at = now + 3600;
  return claims;
}

std::string claims_json(const SessionClaimSet& claims) {
  std::string json = "{";
  const auto add = [&json](std::string_view name, const std::string& value) {
    if (json.size() > 1) json += ",";
    json += "\"" + std::string(name) + "\":" + value;
  };
  const auto quoted = [](const std::string& text) { return "\"" + text + "\""; };
  if (claims.issuer) add("iss", quoted(*claims.issuer));
  if (claims.audience) add("aud", quoted(*claims.audience));
  if (claims.subject) add("sub", quoted(*claims.subject));
  if (claims.email) add("email", quoted(*claims.email));
  if (claims.issued_at) add("iat", std::to_string(*claims.issued_at));
  if (claims.not_before) add("nbf", std::to_string(*claims.not_before));
  if (claims.expires_at) add("exp", std::to_string(*claims.expires_at));
  return json + "}";
}

std::string jwt_with_signature(std::string_view header_json, std::string_view claims_json,
                               std::string_view signature) {
  return base64url_encode(header_json) + "." + base64url_encode(claims_json) + "." +
         base64url_encode(signature);
}

std::string jwt_hs256(std::string_view header_json, std::string_view claims_json,
                      std::string_view secret) {
  const auto signing_input = base64url_encode(header_json) + "." + base64url_encode(claims_json);
  return signing_input + "." + base64url_encode(infra::crypto::hmac_sha256(secret, signing_input));
}

const RsaKeyPair& RsaKeyPair::shared() {
  static const RsaKeyPair pair;
  return pair;
}

RsaKeyPair::RsaKeyPair() {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<std::size_t>(2048));
  if (key == nullptr) throw std::runtime_error("RSA key generation failed");
  key_ = std::shared_ptr<void>(
      key, [](void* pointer) { EVP_PKEY_free(static_cast<EVP_PKEY*>(pointer)); });
}

std::string RsaKeyPair::sign(std::string_view data) const {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                  EVP_MD_CTX_free);
  const auto* input = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t length = 0;
  if (EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, as_key(key_)) != 1 ||
      EVP_DigestSign(context.get(), nullptr, &length, input, data.size()) != 1) {
    throw std::runtime_error("RSA sign init failed");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     input, data.size()) != 1) {
    throw std::runtime_error("RSA sign failed");
  }
  signature.resize(length);
  return signature;
}

std::string RsaKeyPair::jwt(std::string_view header_json, std::string_view claims_json) const {
  const auto signing_input = base64url_encode(header_json) + "." + base64url_encode(claims_json);
  return signing_input + "." + base64url_encode(sign(signing_input));
}

std::string RsaKeyPair::jwks_json(std::string_view key_id) const {
  return R"({"keys":[{"kty":"RSA","kid":")" + std::string(key_id) +
         R"(","use":"sig","alg":"RS256","n":")" +
         base64url_encode(big_number(as_key(key_), OSSL_PKEY_PARAM_RSA_N)) + R"(","e":")" +
         base64url_encode(big_number(as_key(key_), OSSL_PKEY_PARAM_RSA_E)) + R"("}]})";
}

std::string RsaKeyPair::public_key_pem() const {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  if (PEM_write_bio_PUBKEY(bio.get(), as_key(key_)) != 1) throw std::runtime_error("PEM failed");
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

std::string unique_email(std::string_view label) {
  static std::atomic<int> counter{0};
  return std::string(label) + std::to_string(counter++) + "-" + infra::crypto::random_base62(8) +
         "@example.com";
}

Headers with_session(const std::string& token, Headers extra) {
  extra.emplace_back("Authorization", "Bearer " + token);
  return extra;
}

::testing::AssertionResult is_error(const HttpResult& response, int status, std::string_view code,
                                    std::optional<std::string_view> param) {
  auto failure = [&]() {
    return ::testing::AssertionFailure()
           << "expected " << status << " " << code << (param ? " param=" + std::string(*param) : "")
           << ", got " << response.status << " " << response.body << "\n  ";
  };
  if (response.status != status) return failure() << "status differs";
  const auto json = response.json();
  if (!json.IsObject() || !json.HasMember("error") || !json["error"].IsObject()) {
    return failure() << "no error envelope";
  }
  const auto& error = json["error"];
  if (string_member(error, "code") != code) return failure() << "code differs";
  const auto type = contract_types().find(code);
  if (type != contract_types().end() && string_member(error, "type") != type->second) {
    return failure() << "type should be " << type->second;
  }
  if (string_member(error, "message") == "<absent>") return failure() << "no message";
  if (param) {
    const auto actual = string_member(error, "param");
    const auto expected = param->empty() ? std::string("<absent>") : std::string(*param);
    if (actual != expected) return failure() << "param is " << actual;
  }
  if (auto id = check_request_id(response); !id) return id;
  if (string_member(error, "request_id") != response.header("request-id")) {
    return failure() << "error.request_id differs from the Request-Id header";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult has_status(const HttpResult& response, int status) {
  if (response.status != status) {
    return ::testing::AssertionFailure()
           << "expected " << status << ", got " << response.status << " " << response.body;
  }
  return check_request_id(response);
}

std::string normalized_decimal(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace payrail::testing
