-- The TLS proxy's one answer of its own (tls-proxy-config): 503 `service_unavailable` in the
-- API's error envelope, with a request id, when no API process accepts the connection. What the
-- client sent is not read: no request, however malformed, gets another answer from the proxy.
local alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

-- The API's format (req_ and 24 base62 characters), from HAProxy's random generator.
local function request_id(applet)
  local id = { "req_" }
  for _ = 1, 24 do
    local at = applet.f:rand(#alphabet) + 1
    id[#id + 1] = alphabet:sub(at, at)
  end
  return table.concat(id)
end

core.register_service("payrail_unavailable", "tcp", function(applet)
  local id = request_id(applet)
  local body = '{"error":{"type":"api_error","code":"service_unavailable",'
    .. '"message":"The service is unavailable; retry with backoff.","request_id":"'
    .. id .. '"}}'
  applet:send("HTTP/1.1 503 Service Unavailable\r\n"
    .. "Request-Id: " .. id .. "\r\n"
    .. "Retry-After: 1\r\n"
    .. "Content-Type: application/json\r\n"
    .. "Content-Length: " .. #body .. "\r\n"
    .. "Connection: close\r\n\r\n"
    .. body)
end)
