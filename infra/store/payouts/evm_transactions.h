// Live EVM payouts' hot wallets, nonces and signed transactions (migration 0017): where "exactly
// once on chain" is kept. A payout's nonce is allocated with the signed transaction that uses it,
// in the transaction that moves the payout to processing, and its raw bytes are committed before
// the first send; replacements of the nonce are more rows, and at most one row of a nonce is
// ever mined.
#pragma once

#include <pqxx/pqxx>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schemas/model/payouts/chain_transaction.h"

namespace payrail::infra::store::evm_transactions {

struct Wallet {
  std::string network;
  std::string address;     // lowercase 0x address
  std::string key_sealed;  // the private key sealed with the data key (crypto::DataKey)
};

// Records a network's hot wallet. False (and nothing written) when the network has one already.
[[nodiscard]] bool create_wallet(pqxx::work& tx, const Wallet& wallet);
std::vector<Wallet> wallets(pqxx::transaction_base& tx);

// The sender's next nonce is at least `next_nonce` (what the chain says at start: a wallet also
// used elsewhere moves ours on; one of ours not yet sent keeps it).
void seed_nonce(pqxx::work& tx, const std::string& network, const std::string& sender,
                std::uint64_t next_nonce);
// Sets the sender's next nonce to what a new chain says, whatever it was: ONLY for a local
// development chain started afresh (payrail evm-local-chain), never a real network.
void reset_nonce_for_new_chain(pqxx::work& tx, const std::string& network,
                               const std::string& sender, std::uint64_t next_nonce);
// Locks the sender's next nonce until the commit; nullopt when the sender was never seeded.
std::optional<std::uint64_t> lock_next_nonce(pqxx::work& tx, const std::string& network,
                                             const std::string& sender);
// Locks, in one fixed order (network, then sender), every next nonce that the live payouts of
// `payout_ids` without a nonce yet may take, until the commit: an execution batch calls it before
// its messages, which then lock those rows again in their own order without waiting. Without it a
// batch would lock the rows of several networks in its messages' order, and two batches holding
// the same networks in opposite orders would deadlock.
void lock_nonces_of(pqxx::work& tx, const std::vector<std::string>& payout_ids);
// Allocates `signed_transfer.nonce` (the one lock_next_nonce() returned, still locked) to the
// payout, records the signed transaction and moves the sender's next nonce on. A nonce allocated
// twice, or a payout given a second nonce, stops the process (model::invariant).
void record_first(pqxx::work& tx, const std::string& payout_id,
                  const model::SignedTransfer& signed_transfer);
// Another signed transaction of the payout's allocated nonce: a replacement or a nonce filler.
void record_replacement(pqxx::work& tx, const std::string& payout_id,
                        const model::SignedTransfer& signed_transfer);

// A live payout of `payout_ids` that has no nonce yet (approved, or processing without one), as
// the hot-wallet funding check needs it, read without a lock.
struct AwaitingNonce {
  std::string payout_id;
  std::string network;
  std::string asset;
  std::string amount;
  std::string address;
  double age_s = 0;  // since it was created (database time)
};
std::vector<AwaitingNonce> awaiting_nonce(pqxx::transaction_base& tx,
                                          const std::vector<std::string>& payout_ids);

struct Recorded {
  model::SignedTransfer signed_transfer;
  std::string state;  // signed | sent | mined | reverted
  std::optional<std::uint64_t> block_number;
  std::optional<std::string> block_hash;
};
// The payout's transactions, oldest first (empty for a payout without a nonce).
std::vector<Recorded> of_payout(pqxx::transaction_base& tx, const std::string& payout_id);

// A node took the transaction (signed -> sent, the first send's time and head block kept).
void mark_sent(pqxx::work& tx, const std::string& hash, std::optional<std::uint64_t> head_block);
// A node refused it at once for a max fee below the base fee: it stays signed (no node has it),
// and its wait towards a replacement, or a nonce filler when the caps forbid one, starts at
// `head_block` (sent_block, kept when set).
void mark_refused_below_base_fee(pqxx::work& tx, const std::string& hash,
                                 std::optional<std::uint64_t> head_block);
// The chain mined `hash` (succeeded or reverted) in that block. Another transaction of the same
// nonce recorded as mined stops the process (model::invariant).
void mark_mined(pqxx::work& tx, const std::string& hash, bool succeeded, std::uint64_t block_number,
                const std::string& block_hash);

}  // namespace payrail::infra::store::evm_transactions
