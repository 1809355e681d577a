#!/usr/bin/env bash
# The token contract's committed output (infra/adapters/evm/contracts/Token.bin and
# Token.abi.json) is exactly what the pinned solc (infra/adapters/evm/node/package-lock.json)
# compiles from Token.sol. A missing compiler fails the test.
set -euo pipefail
ROOT=${1:?usage: evm_token_bytecode.sh <project root>}
SOLC=$ROOT/infra/adapters/evm/node/node_modules/solc/soljson.js
[ -f "$SOLC" ] || { echo "solc is not installed (infra/test runs npm ci in infra/adapters/evm/node)" >&2; exit 1; }
node "$ROOT/infra/adapters/evm/contracts/compile.mjs" --check
