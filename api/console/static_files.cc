#include "api/console/static_files.h"

namespace payrail::generated {
extern const payrail::model::EmbeddedFile console_web_files[];
extern const std::size_t console_web_files_count;
}  // namespace payrail::generated

namespace payrail::api::console {

std::span<const model::EmbeddedFile> web_files() {
  return {generated::console_web_files, generated::console_web_files_count};
}

std::string_view content_type_of(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

void add_security_headers(HttpResponse& response) {
  response.headers.emplace_back(
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
      "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  response.headers.emplace_back("X-Frame-Options", "DENY");
}

HttpResponse file_response(const model::EmbeddedFile& file) {
  HttpResponse response;
  response.status = 200;
  response.body = std::string(file.content);
  response.headers.emplace_back("Content-Type", std::string(content_type_of(file.name)));
  response.headers.emplace_back("Cache-Control", "no-cache");
  add_security_headers(response);
  return response;
}

}  // namespace payrail::api::console
