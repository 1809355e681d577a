// Recursive Length Prefix, Ethereum's serialisation (the yellow paper, appendix B): a byte
// string or a list of items. Encoding is what signing needs; decoding (strict: only the one
// canonical encoding of an item is accepted) reads a signed transaction back.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "infra/adapters/evm/bytes.h"
#include "infra/adapters/evm/uint256.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::evm::rlp {

Bytes encode_bytes(std::string_view bytes);
// An integer is the byte string of its big-endian value without leading zeros (zero is "").
Bytes encode_scalar(const U256& value);
// A list of items that are already encoded.
Bytes encode_list(std::span<const Bytes> encoded_items);

struct Item {
  bool is_list = false;
  Bytes bytes;              // a byte string's content
  std::vector<Item> items;  // a list's items
};

// Lists nested deeper than this are refused (the decoder recurses; a transaction needs 4).
inline constexpr int kDepthMax = 16;

// Exactly one item that fills `encoded`. Refuses truncated input, trailing bytes, a length
// with leading zeros, a long form where the short one fits, and a single byte below 0x80
// written with a prefix: each has a message naming the problem.
model::Result<Item> decode(std::string_view encoded);

// A byte string item read as an integer: at most 32 bytes, no leading zero byte.
std::optional<U256> scalar(const Item& item);

}  // namespace payrail::infra::evm::rlp
