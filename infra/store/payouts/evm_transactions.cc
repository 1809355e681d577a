#include "infra/store/payouts/evm_transactions.h"

#include <string_view>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"
#include "schemas/model/common/invariant.h"

namespace payrail::infra::store::evm_transactions {
namespace {

constexpr sql::Text kWalletColumns = "network, address, key_sealed";
constexpr pg::Statement kCreateWallet{
    "evm_wallets_create",
    "INSERT INTO evm_wallets (network, address, key_sealed) VALUES ($1, $2, decode($3, 'hex')) "
    "ON CONFLICT (network) DO NOTHING RETURNING network"};
constexpr auto kWalletsSql =
    sql::concat("SELECT ", kWalletColumns, " FROM evm_wallets ORDER BY network");
constexpr pg::Statement kWallets{"evm_wallets_all", kWalletsSql.c_str()};

constexpr pg::Statement kSeedNonce{
    "evm_nonces_seed",
    "INSERT INTO evm_nonces (network, sender, next_nonce) VALUES ($1, $2, $3) ON CONFLICT "
    "(network, sender) DO UPDATE SET next_nonce = greatest(evm_nonces.next_nonce, "
    "excluded.next_nonce)"};
constexpr pg::Statement kResetNonce{
    "evm_nonces_reset",
    "INSERT INTO evm_nonces (network, sender, next_nonce) VALUES ($1, $2, $3) ON CONFLICT "
    "(network, sender) DO UPDATE SET next_nonce = excluded.next_nonce"};
constexpr pg::Statement kLockNextNonce{
    "evm_nonces_lock",
    "SELECT next_nonce FROM evm_nonces WHERE network = $1 AND sender = $2 FOR UPDATE"};
// The LockRows step runs above the sort: rows are locked in (network, sender) order.
constexpr pg::Statement kLockNoncesOf{"evm_nonces_lock_of_payouts", R"sql(
SELECT n.next_nonce FROM evm_nonces n
WHERE n.network IN (
  SELECT p.network FROM payouts p
  WHERE p.id = ANY($1::text[]) AND p.mode = 'live' AND p.status IN ('approved', 'processing')
    AND NOT EXISTS (SELECT 1 FROM evm_nonce_allocations a WHERE a.payout_id = p.id))
ORDER BY n.network, n.sender
FOR UPDATE OF n)sql"};
// Moves the next nonce past the one allocated, only if it was the next: a count of 0 is a nonce
// allocated out of turn.
constexpr pg::Statement kAdvanceNonce{
    "evm_nonces_advance",
    "UPDATE evm_nonces SET next_nonce = next_nonce + 1 WHERE network = $1 AND sender = $2 AND "
    "next_nonce = $3 RETURNING next_nonce"};
constexpr pg::Statement kAllocate{
    "evm_nonce_allocations_insert",
    "INSERT INTO evm_nonce_allocations (network, sender, nonce, payout_id) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT DO NOTHING RETURNING nonce"};
constexpr pg::Statement kRecord{
    "evm_transactions_insert",
    "INSERT INTO evm_transactions (payout_id, network, sender, nonce, kind, raw, hash, "
    "max_fee_per_gas, max_priority_fee_per_gas) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::numeric, "
    "$9::numeric)"};

constexpr sql::Text kColumns =
    "network, sender, nonce, kind, raw, hash, max_fee_per_gas::text AS max_fee_per_gas, "
    "max_priority_fee_per_gas::text AS max_priority_fee_per_gas, state, block_number, block_hash, "
    "sent_block";
constexpr auto kOfPayoutSql =
    sql::concat("SELECT ", kColumns, " FROM evm_transactions WHERE payout_id = $1 ORDER BY id");
constexpr pg::Statement kOfPayout{"evm_transactions_of_payout", kOfPayoutSql.c_str()};
constexpr pg::Statement kMarkSent{
    "evm_transactions_mark_sent",
    "UPDATE evm_transactions SET state = 'sent', broadcast_at = coalesce(broadcast_at, now()), "
    "sent_block = coalesce(sent_block, $2) WHERE hash = $1 AND state = 'signed'"};
// A node refused it for a max fee below the base fee: not sent (still signed), but its wait
// starts here (docs/evm.md, replacement).
constexpr pg::Statement kMarkRefused{
    "evm_transactions_mark_refused",
    "UPDATE evm_transactions SET sent_block = coalesce(sent_block, $2) WHERE hash = $1 AND "
    "state = 'signed'"};
// Another row of the nonce already mined is returned (and nothing written): the invariant.
constexpr pg::Statement kMarkMined{"evm_transactions_mark_mined", R"sql(
WITH mine AS (SELECT network, sender, nonce FROM evm_transactions WHERE hash = $1),
other AS (
  SELECT t.hash FROM evm_transactions t JOIN mine USING (network, sender, nonce)
  WHERE t.hash <> $1 AND t.state IN ('mined', 'reverted')),
written AS (
  UPDATE evm_transactions SET state = $2, block_number = $3, block_hash = $4
  WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM other) RETURNING hash)
SELECT hash FROM other)sql"};

constexpr sql::Text kAwaitingColumns =
    "p.id AS payout_id, p.network, p.currency AS asset, p.amount::text AS amount, p.address, "
    "extract(epoch FROM now() - p.created_at)::float8 AS age_s";
constexpr auto kAwaitingSql = sql::concat(
    "SELECT ", kAwaitingColumns,
    " FROM payouts p WHERE p.id = ANY($1::text[]) AND p.mode = 'live' AND p.status IN "
    "('approved', 'processing') AND NOT EXISTS (SELECT 1 FROM evm_nonce_allocations a WHERE "
    "a.payout_id = p.id)");
constexpr pg::Statement kAwaiting{"evm_transactions_awaiting_nonce", kAwaitingSql.c_str()};

std::string kind_of(const model::SignedTransfer& signed_transfer) {
  return std::string(model::chain_transaction_kind_name(signed_transfer.kind));
}

void insert(pqxx::work& tx, const std::string& payout_id,
            const model::SignedTransfer& signed_transfer) {
  model::invariant(signed_transfer.nonce.has_value(), "a recorded EVM transaction has a nonce");
  (void)pg::exec(tx, kRecord, payout_id, signed_transfer.network, signed_transfer.sender,
                 static_cast<long long>(*signed_transfer.nonce), kind_of(signed_transfer),
                 signed_transfer.raw, signed_transfer.hash, signed_transfer.max_fee_per_gas,
                 signed_transfer.max_priority_fee_per_gas);
}

Recorded read(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  Recorded recorded;
  auto& signed_transfer = recorded.signed_transfer;
  signed_transfer.network = row[at("network")].as<std::string>();
  signed_transfer.sender = row[at("sender")].as<std::string>();
  signed_transfer.nonce = row[at("nonce")].as<std::uint64_t>();
  signed_transfer.kind = row[at("kind")].as<std::string>() == "transfer"
                             ? model::ChainTransactionKind::transfer
                             : model::ChainTransactionKind::nonce_filler;
  signed_transfer.raw = row[at("raw")].as<std::string>();
  signed_transfer.hash = row[at("hash")].as<std::string>();
  signed_transfer.max_fee_per_gas = row[at("max_fee_per_gas")].as<std::string>();
  signed_transfer.max_priority_fee_per_gas = row[at("max_priority_fee_per_gas")].as<std::string>();
  recorded.state = row[at("state")].as<std::string>();
  if (!row[at("block_number")].is_null()) {
    recorded.block_number = row[at("block_number")].as<std::uint64_t>();
  }
  recorded.block_hash = optional_text(row[at("block_hash")]);
  if (!row[at("sent_block")].is_null()) {
    signed_transfer.sent_block = row[at("sent_block")].as<std::uint64_t>();
  }
  return recorded;
}

}  // namespace

bool create_wallet(pqxx::work& tx, const Wallet& wallet) {
  return !pg::exec(tx, kCreateWallet, wallet.network, wallet.address,
                   crypto::hex_encode(wallet.key_sealed))
              .empty();
}

std::vector<Wallet> wallets(pqxx::transaction_base& tx) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kWalletColumns, name);
  };
  std::vector<Wallet> found;
  for (const auto& row : pg::exec(tx, kWallets)) {
    found.push_back({row[at("network")].as<std::string>(), row[at("address")].as<std::string>(),
                     pqxx::binarystring(row[at("key_sealed")]).str()});
  }
  return found;
}

void seed_nonce(pqxx::work& tx, const std::string& network, const std::string& sender,
                std::uint64_t next_nonce) {
  (void)pg::exec(tx, kSeedNonce, network, sender, static_cast<long long>(next_nonce));
}

void reset_nonce_for_new_chain(pqxx::work& tx, const std::string& network,
                               const std::string& sender, std::uint64_t next_nonce) {
  (void)pg::exec(tx, kResetNonce, network, sender, static_cast<long long>(next_nonce));
}

std::optional<std::uint64_t> lock_next_nonce(pqxx::work& tx, const std::string& network,
                                             const std::string& sender) {
  const auto rows = pg::exec(tx, kLockNextNonce, network, sender);
  if (rows.empty()) return std::nullopt;
  return scalar<std::uint64_t>(rows);
}

void lock_nonces_of(pqxx::work& tx, const std::vector<std::string>& payout_ids) {
  if (payout_ids.empty()) return;
  (void)pg::exec(tx, kLockNoncesOf, pg::sql_array(payout_ids));
}

void record_first(pqxx::work& tx, const std::string& payout_id,
                  const model::SignedTransfer& signed_transfer) {
  model::invariant(signed_transfer.nonce.has_value(), "a payout's first transaction has a nonce");
  const auto nonce = static_cast<long long>(*signed_transfer.nonce);
  const auto advanced =
      pg::exec(tx, kAdvanceNonce, signed_transfer.network, signed_transfer.sender, nonce);
  model::invariant(advanced.size() == 1, "a nonce is allocated in turn, as the sender's next");
  const auto allocated =
      pg::exec(tx, kAllocate, signed_transfer.network, signed_transfer.sender, nonce, payout_id);
  model::invariant(allocated.size() == 1, "a nonce is allocated once, to one payout");
  insert(tx, payout_id, signed_transfer);
}

void record_replacement(pqxx::work& tx, const std::string& payout_id,
                        const model::SignedTransfer& signed_transfer) {
  insert(tx, payout_id, signed_transfer);
}

std::vector<Recorded> of_payout(pqxx::transaction_base& tx, const std::string& payout_id) {
  std::vector<Recorded> found;
  for (const auto& row : pg::exec(tx, kOfPayout, payout_id)) found.push_back(read(row));
  return found;
}

std::vector<AwaitingNonce> awaiting_nonce(pqxx::transaction_base& tx,
                                          const std::vector<std::string>& payout_ids) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kAwaitingColumns, name);
  };
  std::vector<AwaitingNonce> found;
  for (const auto& row : pg::exec(tx, kAwaiting, pg::sql_array(payout_ids))) {
    found.push_back({row[at("payout_id")].as<std::string>(), row[at("network")].as<std::string>(),
                     row[at("asset")].as<std::string>(), row[at("amount")].as<std::string>(),
                     row[at("address")].as<std::string>(), row[at("age_s")].as<double>()});
  }
  return found;
}

void mark_sent(pqxx::work& tx, const std::string& hash, std::optional<std::uint64_t> head_block) {
  const auto head =
      head_block ? std::optional<long long>(static_cast<long long>(*head_block)) : std::nullopt;
  (void)pg::exec(tx, kMarkSent, hash, head);
}

void mark_refused_below_base_fee(pqxx::work& tx, const std::string& hash,
                                 std::optional<std::uint64_t> head_block) {
  const auto head =
      head_block ? std::optional<long long>(static_cast<long long>(*head_block)) : std::nullopt;
  (void)pg::exec(tx, kMarkRefused, hash, head);
}

void mark_mined(pqxx::work& tx, const std::string& hash, bool succeeded, std::uint64_t block_number,
                const std::string& block_hash) {
  const auto other = pg::exec(tx, kMarkMined, hash, succeeded ? "mined" : "reverted",
                              static_cast<long long>(block_number), block_hash);
  model::invariant(other.empty(), "one transaction of a nonce is mined");
}

}  // namespace payrail::infra::store::evm_transactions
