-- Live payouts on the EVM networks (docs/evm.md "Exactly once on chain"): "exactly once on chain"
-- is kept here. A hot wallet per network with its key sealed; the next nonce of each sender;
-- which payout each nonce was allocated to (once: the primary key); and every signed transaction
-- of a nonce, the first and its replacements, with its raw bytes committed before it is first
-- sent, so that a retry re-sends those bytes and never signs anew.

-- A network's hot wallet. The key is sealed with the data key (crypto::DataKey, as webhook
-- secrets are) and never leaves the process that opens it.
CREATE TABLE evm_wallets (
  network     text PRIMARY KEY CHECK (network IN ('ethereum', 'polygon', 'arbitrum', 'optimism',
                                                 'base', 'bsc')),
  address     text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  key_sealed  bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The next nonce of a sender on a network: allocation takes this row's lock, so two execution
-- processes never allocate the same nonce, and a nonce is allocated only with its transaction.
CREATE TABLE evm_nonces (
  network     text NOT NULL,
  sender      text NOT NULL CHECK (sender ~ '^0x[0-9a-f]{40}$'),
  next_nonce  bigint NOT NULL CHECK (next_nonce >= 0),
  PRIMARY KEY (network, sender)
);

-- Each allocated nonce and the payout it belongs to: a nonce is allocated once.
CREATE TABLE evm_nonce_allocations (
  network     text NOT NULL,
  sender      text NOT NULL,
  nonce       bigint NOT NULL CHECK (nonce >= 0),
  payout_id   text NOT NULL UNIQUE REFERENCES payouts (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, sender, nonce)
);

-- The signed transactions of a nonce: the transfer, its replacements (same nonce, higher fees)
-- and the zero-value self transfer that consumes a nonce whose transfer can never be mined.
CREATE TABLE evm_transactions (
  id                        bigserial PRIMARY KEY,
  payout_id                 text NOT NULL REFERENCES payouts (id),
  network                   text NOT NULL,
  sender                    text NOT NULL,
  nonce                     bigint NOT NULL,
  kind                      text NOT NULL CHECK (kind IN ('transfer', 'nonce_filler')),
  raw                       text NOT NULL CHECK (raw ~ '^0x02[0-9a-f]+$'),
  hash                      text NOT NULL UNIQUE CHECK (hash ~ '^0x[0-9a-f]{64}$'),
  max_fee_per_gas           numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas  numeric(78, 0) NOT NULL,
  state                     text NOT NULL DEFAULT 'signed'
                            CHECK (state IN ('signed', 'sent', 'mined', 'reverted')),
  block_number              bigint,
  block_hash                text,
  created_at                timestamptz NOT NULL DEFAULT now(),
  broadcast_at              timestamptz,
  -- The node's head when a node first took the transaction: replaced once it is
  -- replace_after_blocks behind.
  sent_block                bigint,
  FOREIGN KEY (network, sender, nonce) REFERENCES evm_nonce_allocations (network, sender, nonce)
);
CREATE INDEX evm_transactions_by_payout ON evm_transactions (payout_id, id);
-- One transaction of a nonce is ever mined (the chain's own rule, kept as ours).
CREATE UNIQUE INDEX evm_transactions_one_mined ON evm_transactions (network, sender, nonce)
  WHERE state IN ('mined', 'reverted');
