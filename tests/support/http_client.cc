#include "tests/support/http_client.h"

#include <curl/curl.h>

#include <strings.h>

#include <algorithm>
#include <stdexcept>

namespace payrail::testing {
namespace {

size_t collect_body(char* data, size_t size, size_t count, void* target) {
  static_cast<std::string*>(target)->append(data, size * count);
  return size * count;
}

size_t collect_header(char* data, size_t size, size_t count, void* target) {
  const std::string line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    auto name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of("\r\n ") + 1);
    auto& headers = *static_cast<std::map<std::string, std::string>*>(target);
    // Several cookies are several Set-Cookie fields: kept one per line.
    if (name == "set-cookie" && headers.contains(name)) {
      headers[name] += "\n" + value;
    } else {
      headers[name] = value;
    }
  }
  return size * count;
}

}  // namespace

rapidjson::Document HttpResult::json() const {
  rapidjson::Document document;
  document.Parse(body.c_str(), body.size());
  return document;
}

std::string HttpResult::header(const std::string& lower_case_name) const {
  const auto it = headers.find(lower_case_name);
  return it == headers.end() ? "" : it->second;
}

std::string HttpResult::error_code() const {
  auto document = json();
  if (!document.IsObject() || !document.HasMember("error")) return "";
  const auto& error = document["error"];
  return error.HasMember("code") && error["code"].IsString() ? error["code"].GetString() : "";
}

std::string HttpResult::error_param() const {
  auto document = json();
  if (!document.IsObject() || !document.HasMember("error")) return "";
  const auto& error = document["error"];
  return error.HasMember("param") && error["param"].IsString() ? error["param"].GetString() : "";
}

HttpResult HttpClient::request(const std::string& method, const std::string& path,
                               const std::string& body, const Headers& headers) const {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) throw std::runtime_error("curl_easy_init failed");
  HttpResult result;
  const auto url = base_url_ + path;
  curl_slist* header_list = nullptr;
  for (const auto& [name, value] : headers) {
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (!body.empty() || method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collect_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result.headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  if (!ca_file_.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file_.c_str());
  const auto code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  result.status = static_cast<int>(status);
  curl_slist_free_all(header_list);
  curl_easy_cleanup(curl);
  if (code != CURLE_OK) {
    throw std::runtime_error("HTTP " + method + " " + url + ": " + curl_easy_strerror(code));
  }
  return result;
}

HttpResult HttpClient::post(const std::string& path, const std::string& body,
                            const Headers& headers) const {
  Headers all = headers;
  const bool has_type = std::any_of(all.begin(), all.end(), [](const auto& header) {
    return strcasecmp(header.first.c_str(), "Content-Type") == 0;
  });
  if (!has_type) all.emplace_back("Content-Type", "application/json");
  return request("POST", path, body, all);
}

Headers with_key(const std::string& api_key, Headers extra) {
  extra.emplace_back("X-API-Key", api_key);
  return extra;
}

}  // namespace payrail::testing
