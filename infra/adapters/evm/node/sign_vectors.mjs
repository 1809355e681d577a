// Writes tests/unit/evm_vectors.inc: EIP-1559 transactions signed by an independent
// implementation (anvil's eth_signTransaction, with its dev account 0, whose key is public) and
// hashed by another (js-sha3). The unit test signs the same fields with our code and must get
// the same raw bytes and hash.
//
//   node infra/adapters/evm/node/sign_vectors.mjs     (after infra/test installed node_modules)
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(join(here, 'package.json'))
const { keccak256 } = require('js-sha3')
const anvilBinary = join(here, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil')
const output = join(here, '../../../../tests/unit/evm_vectors.inc')

const SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'  // anvil's dev account 0
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const POLYGON_USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359'
const BSC_USDC = '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d'
const ONE_GWEI = '0x3b9aca00'
const TWO_GWEI = '0x77359400'

// transfer(address,uint256): a9059cbb, the recipient and the amount, each a 32-byte word.
const transferData = (recipient, amountHex) =>
  '0xa9059cbb' + recipient.slice(2).padStart(64, '0') + amountHex.slice(2).padStart(64, '0')
const hex = (value) => '0x' + BigInt(value).toString(16)

const cases = [
  { name: 'native 1 ETH on ethereum', chainId: 1, nonce: 0, priority: ONE_GWEI, max: TWO_GWEI,
    gas: 21000, to: RECIPIENT, value: hex(10n ** 18n), data: '0x' },
  { name: 'native value on polygon', chainId: 137, nonce: 7, priority: '0x6fc23ac00',
    max: '0xba43b7400', gas: 21000, to: RECIPIENT, value: hex(12345), data: '0x' },
  { name: 'USDC 250.75 (6 decimals) on polygon', chainId: 137, nonce: 12, priority: '0x6fc23ac00',
    max: '0xdf8475800', gas: 65000, to: POLYGON_USDC, value: '0x0',
    data: transferData(RECIPIENT, hex(250750000)) },
  { name: 'USDC 1.5 (18 decimals) on bsc', chainId: 56, nonce: 3, priority: ONE_GWEI,
    max: '0xb2d05e00', gas: 60000, to: BSC_USDC, value: '0x0',
    data: transferData(RECIPIENT, hex(15n * 10n ** 17n)) },
  { name: 'zero-value self transfer', chainId: 31337, nonce: 42, priority: ONE_GWEI, max: TWO_GWEI,
    gas: 21000, to: SENDER, value: '0x0', data: '0x' },
  { name: 'largest nonce (2^64 - 2)', chainId: 1, nonce: hex(2n ** 64n - 2n), priority: ONE_GWEI,
    max: TWO_GWEI, gas: 21000, to: RECIPIENT, value: '0x1', data: '0x' },
  { name: 'fees around 2^64', chainId: 1, nonce: 1, priority: hex(2n ** 64n - 1n),
    max: hex(2n ** 64n + 1n), gas: 21000, to: RECIPIENT, value: '0x0', data: '0x' },
  // anvil takes fees up to 2^128 - 1 (its u128); the value is a full 256-bit word.
  { name: 'fees near 2^128, value beyond 2^160', chainId: 137, nonce: 2,
    priority: hex(2n ** 127n + 5n), max: hex(2n ** 128n - 1n), gas: 30000000, to: RECIPIENT, value: hex(2n ** 160n + 7n), data: '0x' },
  { name: 'contract creation', chainId: 31337, nonce: 0, priority: ONE_GWEI, max: TWO_GWEI,
    gas: 100000, to: null, value: '0x0', data: '0x600a600c600039600a6000f3602a60005260206000f3' },
  { name: 'zero fees', chainId: 56, nonce: 0, priority: '0x0', max: '0x0', gas: 21000,
    to: RECIPIENT, value: '0x0', data: '0x' },
]

function startAnvil(chainId) {
  return new Promise((resolve, reject) => {
    const child = spawn(anvilBinary, ['--host', '127.0.0.1', '--port', '0', '--chain-id',
      String(chainId)], { stdio: ['ignore', 'pipe', 'inherit'] })
    let seen = ''
    child.stdout.on('data', (chunk) => {
      seen += chunk
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen)
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}` })
    })
    child.on('exit', () => reject(new Error(`anvil (chain ${chainId}) exited`)))
  })
}

async function rpc(url, method, params) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = await response.json()
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

// The byte lengths of r and s in a signed type-2 transaction (RLP: the list's last two items).
function signatureLengths(raw) {
  const bytes = Buffer.from(raw.slice(4), 'hex')  // after 0x02
  let offset = bytes[0] <= 0xf7 ? 1 : 1 + (bytes[0] - 0xf7)
  const lengths = []
  while (offset < bytes.length) {
    const first = bytes[offset]
    let header = 1
    let length = 0
    if (first < 0x80) length = 1, header = 0
    else if (first <= 0xb7) length = first - 0x80
    else if (first < 0xc0) header = 1 + first - 0xb7, length = bytes.readUIntBE(offset + 1, first - 0xb7)
    else if (first <= 0xf7) length = first - 0xc0
    else header = 1 + first - 0xf7, length = bytes.readUIntBE(offset + 1, first - 0xf7)
    lengths.push(length)
    offset += header + length
  }
  return lengths.slice(-2)
}

async function sign(url, vector) {
  const request = { from: SENDER, nonce: hex(vector.nonce), maxPriorityFeePerGas: vector.priority,
    maxFeePerGas: vector.max, gas: hex(vector.gas), value: vector.value, data: vector.data,
    chainId: hex(vector.chainId), type: '0x2', accessList: [] }
  if (vector.to) request.to = vector.to
  const raw = await rpc(url, 'eth_signTransaction', [request])
  return { ...vector, raw, hash: '0x' + keccak256(Buffer.from(raw.slice(2), 'hex')) }
}

// A signature whose r (and one whose s) is shorter than 32 bytes: its leading zero bytes are
// dropped in the encoding. About one nonce in 256 gives one; the search is deterministic.
async function shortSignatureCases(url) {
  const found = {}
  for (let nonce = 0; nonce < 5000 && !(found.r && found.s); ++nonce) {
    const vector = await sign(url, { chainId: 31337, nonce, priority: ONE_GWEI, max: TWO_GWEI,
      gas: 21000, to: RECIPIENT, value: '0x1', data: '0x' })
    const [rLength, sLength] = signatureLengths(vector.raw)
    if (rLength < 32 && !found.r) found.r = { ...vector, name: `r shorter than 32 bytes (nonce ${nonce})` }
    if (sLength < 32 && !found.s) found.s = { ...vector, name: `s shorter than 32 bytes (nonce ${nonce})` }
  }
  if (!found.r || !found.s) throw new Error('no short r or s found')
  return [found.r, found.s]
}

const quote = (text) => JSON.stringify(text)
const line = (v) => `    {${quote(v.name)}, ${v.chainId}, ${quote(hex(v.nonce))}, ${quote(v.priority)}, ` +
  `${quote(v.max)}, ${v.gas}, ${quote(v.to ?? '')}, ${quote(v.value)}, ${quote(v.data)},\n` +
  `     ${quote(v.raw)},\n     ${quote(v.hash)}},`

const signed = []
const chainIds = [...new Set([...cases.map((v) => v.chainId), 31337])]
for (const chainId of chainIds) {
  const { child, url } = await startAnvil(chainId)
  try {
    for (const vector of cases.filter((v) => v.chainId === chainId)) signed.push(await sign(url, vector))
    if (chainId === 31337) signed.push(...(await shortSignatureCases(url)))
  } finally {
    child.kill()
  }
}
const version = (await new Promise((resolve) => {
  const child = spawn(anvilBinary, ['--version'])
  let text = ''
  child.stdout.on('data', (chunk) => (text += chunk))
  child.on('exit', () => resolve(text.split('\n')[0]))
}))
writeFileSync(output, `// Generated by infra/adapters/evm/node/sign_vectors.mjs: do not edit.
// EIP-1559 transactions signed by ${version} (eth_signTransaction, dev account 0) and hashed by
// js-sha3. Fields: name, chain id, nonce, max priority fee, max fee, gas, to ("" creates a
// contract), value, data, signed raw transaction, transaction hash.
${signed.map(line).join('\n')}
`)
console.log(`wrote ${signed.length} vectors to tests/unit/evm_vectors.inc`)
