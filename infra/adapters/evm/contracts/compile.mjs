// Compiles Token.sol with the solc pinned in ../node/package-lock.json (solcjs, installed by
// infra/test) and writes Token.bin (creation code, hex) and Token.abi.json beside it.
//
//   node infra/adapters/evm/contracts/compile.mjs          write the two files
//   node infra/adapters/evm/contracts/compile.mjs --check  exit 1 unless they are what the
//                                                          pinned compiler gives (a lint test)
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(join(here, '../node/package.json'))
const solc = require('solc')

// The settings are part of the output (the metadata hash at the end of the bytecode): change
// them only together with the committed files. EVM version paris: no PUSH0, so the code runs on
// every network the adapter serves.
const input = {
  language: 'Solidity',
  sources: { 'Token.sol': { content: readFileSync(join(here, 'Token.sol'), 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'paris',
    outputSelection: { 'Token.sol': { Token: ['abi', 'evm.bytecode.object'] } },
  },
}
const output = JSON.parse(solc.compile(JSON.stringify(input)))
const errors = (output.errors || []).filter((e) => e.severity === 'error')
if (errors.length > 0 || !output.contracts) {
  for (const error of errors) console.error(error.formattedMessage)
  process.exit(1)
}
const contract = output.contracts['Token.sol'].Token
const files = {
  'Token.bin': '0x' + contract.evm.bytecode.object + '\n',
  'Token.abi.json': JSON.stringify(contract.abi, null, 2) + '\n',
}
if (process.argv.includes('--check')) {
  let same = true
  for (const [name, text] of Object.entries(files)) {
    if (readFileSync(join(here, name), 'utf8') !== text) {
      console.error(`${name} differs from what solc ${solc.version()} compiles from Token.sol: ` +
        'run node infra/adapters/evm/contracts/compile.mjs and commit the result')
      same = false
    }
  }
  process.exit(same ? 0 : 1)
}
for (const [name, text] of Object.entries(files)) writeFileSync(join(here, name), text)
console.log(`compiled with solc ${solc.version()}`)
