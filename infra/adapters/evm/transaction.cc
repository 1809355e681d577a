#include "infra/adapters/evm/transaction.h"

#include <algorithm>
#include <vector>

#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/rlp.h"

namespace payrail::infra::evm {
namespace {

constexpr char kType = 0x02;
constexpr std::size_t kUnsignedFields = 9;
constexpr std::size_t kSignedFields = 12;

std::vector<Bytes> unsigned_fields(const Transaction& transaction) {
  const Bytes no_access_list = rlp::encode_list({});
  return {rlp::encode_scalar(transaction.chain_id),
          rlp::encode_scalar(transaction.nonce),
          rlp::encode_scalar(transaction.fees.max_priority_fee_per_gas),
          rlp::encode_scalar(transaction.fees.max_fee_per_gas),
          rlp::encode_scalar(transaction.gas_limit),
          rlp::encode_bytes(transaction.to ? transaction.to->raw() : Bytes()),
          rlp::encode_scalar(transaction.value),
          rlp::encode_bytes(transaction.data),
          no_access_list};
}

Bytes scalar_bytes(const std::array<std::uint8_t, 32>& word) {
  return U256::from_big_endian(Bytes(word.begin(), word.end()))->to_minimal_big_endian();
}

model::Error malformed(const std::string& why) {
  return model::bad_request("not a signed type-2 transaction: " + why);
}

std::optional<std::uint64_t> uint64_field(const rlp::Item& item) {
  const auto value = rlp::scalar(item);
  return value ? value->to_uint64() : std::nullopt;
}

std::optional<std::array<std::uint8_t, 32>> word_field(const rlp::Item& item) {
  const auto value = rlp::scalar(item);
  if (!value) return std::nullopt;
  return value->to_word();
}

// The nine fields of the transaction itself, checked.
model::Result<Transaction> read_fields(const std::vector<rlp::Item>& fields) {
  Transaction transaction;
  const auto chain_id = uint64_field(fields[0]);
  const auto nonce = uint64_field(fields[1]);
  const auto priority_fee = rlp::scalar(fields[2]);
  const auto max_fee = rlp::scalar(fields[3]);
  const auto gas_limit = uint64_field(fields[4]);
  const auto value = rlp::scalar(fields[6]);
  if (!chain_id || !nonce || !priority_fee || !max_fee || !gas_limit || !value) {
    return malformed("a numeric field is not a canonical integer of its size");
  }
  if (fields[5].is_list || (!fields[5].bytes.empty() && fields[5].bytes.size() != 20)) {
    return malformed("the recipient is not 20 bytes");
  }
  if (fields[7].is_list) return malformed("the data is not a byte string");
  if (!fields[8].is_list || !fields[8].items.empty()) {
    return malformed("the access list is not empty");
  }
  transaction.chain_id = *chain_id;
  transaction.nonce = *nonce;
  transaction.fees = {*priority_fee, *max_fee};
  transaction.gas_limit = *gas_limit;
  if (!fields[5].bytes.empty()) transaction.to = address_from_bytes(fields[5].bytes);
  transaction.value = *value;
  transaction.data = fields[7].bytes;
  return transaction;
}

}  // namespace

Transaction native_transfer(std::uint64_t chain_id, std::uint64_t nonce, const Fees& fees,
                            const Address& to, const U256& value) {
  return {chain_id, nonce, fees, kNativeTransferGas, to, value, {}};
}

Transaction token_transfer(std::uint64_t chain_id, std::uint64_t nonce, const Fees& fees,
                           std::uint64_t gas_limit, const Address& token, const Address& recipient,
                           const U256& amount) {
  return {chain_id, nonce, fees, gas_limit, token, U256(0), abi::transfer_call(recipient, amount)};
}

Transaction self_transfer(std::uint64_t chain_id, std::uint64_t nonce, const Fees& fees,
                          const Address& sender) {
  return native_transfer(chain_id, nonce, fees, sender, U256(0));
}

Bytes signing_payload(const Transaction& transaction) {
  return kType + rlp::encode_list(unsigned_fields(transaction));
}

Hash signing_hash(const Transaction& transaction) {
  return keccak(signing_payload(transaction));
}

Bytes encode_signed(const Transaction& transaction, const Signature& signature) {
  auto fields = unsigned_fields(transaction);
  fields.push_back(rlp::encode_scalar(signature.y_parity));
  fields.push_back(rlp::encode_bytes(scalar_bytes(signature.r)));
  fields.push_back(rlp::encode_bytes(scalar_bytes(signature.s)));
  return kType + rlp::encode_list(fields);
}

model::Result<SignedTransaction> sign(const Transaction& transaction, const Signer& signer) {
  const Hash digest = signing_hash(transaction);
  auto signature = signer.sign(digest);
  if (!signature.ok()) return std::move(signature).error();
  const auto recovered = recover_signer(digest, *signature);
  if (!recovered || *recovered != signer.address()) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "the signer's signature does not recover to its own address");
  }
  SignedTransaction signed_transaction{
      transaction, *signature, *recovered, encode_signed(transaction, *signature), {}};
  signed_transaction.hash = keccak(signed_transaction.raw);
  return signed_transaction;
}

model::Result<SignedTransaction> decode_signed(std::string_view raw) {
  if (raw.empty() || raw[0] != kType) return malformed("the first byte is not 0x02");
  auto decoded = rlp::decode(raw.substr(1));
  if (!decoded.ok()) return std::move(decoded).error();
  if (!decoded->is_list || decoded->items.size() != kSignedFields) {
    return malformed("not a list of twelve fields");
  }
  const auto& items = decoded->items;
  auto transaction =
      read_fields(std::vector<rlp::Item>(items.begin(), items.begin() + kUnsignedFields));
  if (!transaction.ok()) return std::move(transaction).error();
  const auto y_parity = uint64_field(items[9]);
  const auto r = word_field(items[10]);
  const auto s = word_field(items[11]);
  if (!y_parity || *y_parity > 1 || !r || !s) return malformed("the signature fields are invalid");
  const Signature signature{*r, *s, static_cast<std::uint8_t>(*y_parity)};
  const auto sender = recover_signer(signing_hash(*transaction), signature);
  if (!sender) return malformed("the signature recovers no sender");
  // Strict RLP admits one encoding per value, so re-encoding must give the same bytes.
  if (encode_signed(*transaction, signature) != raw) return malformed("not in canonical form");
  return SignedTransaction{*transaction, signature, *sender, Bytes(raw), keccak(raw)};
}

}  // namespace payrail::infra::evm
