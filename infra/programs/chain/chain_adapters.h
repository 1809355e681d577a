// The chain adapters of a worker process, composed from configuration, the store and the
// adapters: the simulator for test mode and, with PAYRAIL_CHAIN_ADAPTER=evm, the EVM adapter
// with each network's hot wallet opened with the data key, its node's chain id checked, and the
// store's nonce of each hot wallet seeded from the chain.
#pragma once

#include <memory>

#include "infra/adapters/chain/chain_adapter.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/programs/config/config.h"

namespace payrail::infra::programs {

// An error names what is wrong (a node answering another chain id names its network); the
// caller stops the process on it.
model::Result<std::unique_ptr<chain::ChainAdapters>> load_chain_adapters(const Config& config,
                                                                         pg::Pool& pool);

// load_chain_adapters() for a worker's start: on an error, logs it and stops the process.
std::unique_ptr<chain::ChainAdapters> chain_adapters_or_exit(const Config& config, pg::Pool& pool);

}  // namespace payrail::infra::programs
