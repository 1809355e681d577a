// The web console's pages, scripts and styles (api/console/web/), compiled into the binary, so
// the API serves them from its own origin with nothing read from disk or fetched from elsewhere.
#pragma once

#include <span>
#include <string_view>

#include "api/http/message.h"
#include "schemas/model/common/embedded_file.h"

namespace payrail::api::console {

std::span<const model::EmbeddedFile> web_files();

// Content-Type by extension (html, js, css).
std::string_view content_type_of(std::string_view name);

// Headers every console response carries: a Content-Security-Policy that admits only this
// origin's scripts and styles (no inline script, no eval, no framing), no MIME sniffing, no
// Referer leaving the page.
void add_security_headers(HttpResponse& response);

// 200 with the file, its Content-Type, the security headers and Cache-Control: no-cache (the
// browser revalidates, so a new release is seen at once).
HttpResponse file_response(const model::EmbeddedFile& file);

}  // namespace payrail::api::console
