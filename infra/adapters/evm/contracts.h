// Contracts on a chain we run ourselves (anvil): the project's token (contracts/Token.sol,
// compiled bytecode embedded in the library) and a deployment helper. The local chain and the
// tests use them; a live network's tokens are configured, never deployed by us.
#pragma once

#include <string>
#include <string_view>

#include "infra/adapters/evm/node.h"
#include "infra/adapters/evm/signer.h"
#include "infra/adapters/evm/transaction.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::evm {

// The token's creation code (contracts/Token.bin) and ABI (contracts/Token.abi.json).
const Bytes& token_creation_code();
std::string_view token_abi_json();
// Its constructor arguments: Token(string name, string symbol, uint8 decimals).
Bytes token_constructor_arguments(std::string_view name, std::string_view symbol, int decimals);
// mint(address,uint256): only the deployer may call it (to fund a hot wallet).
Bytes token_mint_call(const Address& to, const U256& amount);

// keccak256("Transfer(address,address,uint256)"): topic 0 of every ERC-20 Transfer log.
Hash transfer_event_topic();

// Fees that get a transaction into the next blocks: the node's suggested priority fee, and a
// max fee of twice the latest base fee plus that (room for the base fee to rise for a while).
RpcResult<Fees> suggest_fees(Node& node);

// Waits for the receipt of `transaction`, polling every `poll_ms`, at most `timeout_ms`.
model::Result<Receipt> wait_for_receipt(Node& node, const Hash& transaction, long timeout_ms,
                                        long poll_ms = 50);

// Signs `transaction` with its chain id, the sender's pending nonce and suggested fees filled
// in (and the gas estimated when it is 0), sends it and waits for its receipt. A reverted
// transaction is a receipt with succeeded == false, not an error.
model::Result<Receipt> send_and_wait(Node& node, const Signer& signer, Transaction transaction,
                                     long timeout_ms);

// Deploys `creation_code` followed by its ABI-encoded constructor arguments; returns the new
// contract's address. A creation that reverts is an error.
model::Result<Address> deploy_contract(Node& node, const Signer& signer,
                                       std::string_view creation_code,
                                       std::string_view constructor_arguments, long timeout_ms);

}  // namespace payrail::infra::evm
