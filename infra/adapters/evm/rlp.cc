#include "infra/adapters/evm/rlp.h"

namespace payrail::infra::evm::rlp {
namespace {

constexpr std::uint8_t kShortString = 0x80;
constexpr std::uint8_t kLongString = 0xb7;
constexpr std::uint8_t kShortList = 0xc0;
constexpr std::uint8_t kLongList = 0xf7;
constexpr std::size_t kShortLengthMax = 55;

// The prefix of a payload of `length` bytes: offset + length, or offset + 55 + the length's
// own size followed by the length in big-endian bytes.
Bytes prefix(std::uint8_t short_offset, std::size_t length) {
  if (length <= kShortLengthMax) return Bytes(1, static_cast<char>(short_offset + length));
  const Bytes length_bytes = U256(length).to_minimal_big_endian();
  return static_cast<char>(short_offset + kShortLengthMax + length_bytes.size()) + length_bytes;
}

model::Error malformed(const std::string& why) {
  return model::bad_request("malformed RLP: " + why);
}

struct Header {
  bool is_list = false;
  std::size_t header_bytes = 0;
  std::size_t payload_bytes = 0;
};

// Reads the prefix at the start of `input` and checks that it is canonical and fits.
model::Result<Header> read_header(std::string_view input) {
  if (input.empty()) return malformed("empty input where an item was expected");
  const auto first = static_cast<std::uint8_t>(input[0]);
  if (first < kShortString) return Header{false, 0, 1};
  const bool is_list = first >= kShortList;
  const std::uint8_t short_offset = is_list ? kShortList : kShortString;
  const std::uint8_t long_offset = is_list ? kLongList : kLongString;
  Header header{is_list, 1, 0};
  if (first <= long_offset) {
    header.payload_bytes = first - short_offset;
    if (!is_list && header.payload_bytes == 1 && input.size() > 1 &&
        static_cast<std::uint8_t>(input[1]) < kShortString) {
      return malformed("a single byte below 0x80 must be its own encoding");
    }
  } else {
    const std::size_t length_bytes = first - long_offset;
    if (input.size() < 1 + length_bytes) return malformed("truncated length");
    if (input[1] == 0) return malformed("length with leading zeros");
    if (length_bytes > sizeof(std::size_t)) return malformed("length too large");
    for (std::size_t i = 0; i < length_bytes; ++i) {
      header.payload_bytes = header.payload_bytes << 8 | static_cast<std::uint8_t>(input[1 + i]);
    }
    if (header.payload_bytes <= kShortLengthMax) {
      return malformed("long form for a length that fits the short form");
    }
    header.header_bytes = 1 + length_bytes;
  }
  if (input.size() - header.header_bytes < header.payload_bytes) {
    return malformed("payload shorter than its length says");
  }
  return header;
}

// Decodes the item at the start of `input`; `used` receives its size.
model::Result<Item> decode_item(std::string_view input, int depth, std::size_t& used) {
  auto header = read_header(input);
  if (!header.ok()) return std::move(header).error();
  used = header->header_bytes + header->payload_bytes;
  std::string_view payload = input.substr(header->header_bytes, header->payload_bytes);
  Item item;
  item.is_list = header->is_list;
  if (!item.is_list) {
    item.bytes = header->header_bytes == 0 ? Bytes(input.substr(0, 1)) : Bytes(payload);
    return item;
  }
  if (depth >= kDepthMax) return malformed("lists nested too deeply");
  while (!payload.empty()) {
    std::size_t child_used = 0;
    auto child = decode_item(payload, depth + 1, child_used);
    if (!child.ok()) return std::move(child).error();
    item.items.push_back(std::move(child).value());
    payload.remove_prefix(child_used);
  }
  return item;
}

}  // namespace

Bytes encode_bytes(std::string_view bytes) {
  if (bytes.size() == 1 && static_cast<std::uint8_t>(bytes[0]) < kShortString) return Bytes(bytes);
  return prefix(kShortString, bytes.size()) + Bytes(bytes);
}

Bytes encode_scalar(const U256& value) {
  return encode_bytes(value.to_minimal_big_endian());
}

Bytes encode_list(std::span<const Bytes> encoded_items) {
  Bytes payload;
  for (const auto& item : encoded_items) payload += item;
  return prefix(kShortList, payload.size()) + payload;
}

model::Result<Item> decode(std::string_view encoded) {
  std::size_t used = 0;
  auto item = decode_item(encoded, 0, used);
  if (!item.ok()) return item;
  if (used != encoded.size()) return malformed("trailing bytes after the item");
  return item;
}

std::optional<U256> scalar(const Item& item) {
  if (item.is_list) return std::nullopt;
  if (!item.bytes.empty() && item.bytes[0] == 0) return std::nullopt;
  return U256::from_big_endian(item.bytes);
}

}  // namespace payrail::infra::evm::rlp
