// A small libcurl client for tests: real HTTP against the real API binary.
#pragma once

#include <rapidjson/document.h>

#include <map>
#include <string>
#include <vector>

namespace payrail::testing {

struct HttpResult {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  rapidjson::Document json() const;
  std::string header(const std::string& lower_case_name) const;
  // error.code of an error envelope ("" if not an error envelope).
  std::string error_code() const;
  std::string error_param() const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  // `ca_file`: the CA to trust for an https:// base URL (the stack's generated one).
  explicit HttpClient(std::string base_url, std::string ca_file = "")
      : base_url_(std::move(base_url)), ca_file_(std::move(ca_file)) {}
  HttpResult request(const std::string& method, const std::string& path,
                     const std::string& body = "", const Headers& headers = {}) const;
  HttpResult get(const std::string& path, const Headers& headers = {}) const {
    return request("GET", path, "", headers);
  }
  // POST with Content-Type: application/json (unless headers set another).
  HttpResult post(const std::string& path, const std::string& body,
                  const Headers& headers = {}) const;
  HttpResult del(const std::string& path, const Headers& headers = {}) const {
    return request("DELETE", path, "", headers);
  }
  const std::string& base_url() const { return base_url_; }

 private:
  std::string base_url_;
  std::string ca_file_;
};

Headers with_key(const std::string& api_key, Headers extra = {});

}  // namespace payrail::testing
