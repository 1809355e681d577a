// The web console in a real browser: Debian's headless Chromium driven by playwright-core, with
// axe-core checking every page. Started by console_browser_test.cc against a whole stack behind
// its TLS proxy, in one of two phases:
//
//   node console.mjs development   the embedded default: the development sign-in says what it is,
//                                  signs in, creates an organization (its id is left for phase 2)
//   node console.mjs oidc          sign-in at a real OpenID provider, then every scenario of
//                                  issue 41: a webhook endpoint receiving signed events and a
//                                  redelivery, a key created from the keyboard, used (last used)
//                                  and revoked (refused), a payout found with its timeline,
//                                  approvals from the keyboard with the balance moving, balance
//                                  transactions exported as CSV, KYB submitted and reviewed, a
//                                  cross-site form post refused, another organization unreachable,
//                                  sign-out
//
// Environment (set by the driver): CONSOLE_URL, CONSOLE_TLS_DIR (the stack's CA, and the
// certificate the local webhook receiver serves), CONSOLE_ARTIFACTS (screenshots, CSV, notes),
// PAYRAIL_CLI and the stack's PAYRAIL_* settings for operator commands. Exits non-zero on the
// first failed expectation.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const phase = process.argv[2];
const consoleUrl = process.env.CONSOLE_URL;
const tlsDir = process.env.CONSOLE_TLS_DIR;
const artifacts = process.env.CONSOLE_ARTIFACTS;
mkdirSync(artifacts, { recursive: true });
const timeoutMs = 30000;
let attackTarget = '';

function log(message) {
  console.log(`[console ${phase}] ${message}`);
}

async function launch() {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // The stack's certificate is signed by its own CA; the page stays a secure context.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, acceptDownloads: true });
  context.setDefaultTimeout(timeoutMs);
  const page = await context.newPage();
  page.on('pageerror', (error) => { log(`page error: ${error.message}`); process.exitCode = 1; });
  page.on('console', (message) => { if (message.type() === 'error') log(`console error: ${message.text()}`); });
  return { browser, context, page };
}

// No serious or critical axe violation on the page as it is now; a screenshot either way.
async function check(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  await page.evaluate(axeSource);
  const results = await page.evaluate(() => window.axe.run(document, {
    resultTypes: ['violations'],
  }));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  writeFileSync(join(artifacts, `${name}.axe.json`), JSON.stringify(results.violations, null, 2));
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`), [],
    `axe violations on ${name}`);
  log(`${name}: screenshot, axe clean (${results.violations.length} minor)`);
}

// A fresh load of the page (a hash change alone would re-render in place, and the old heading
// could be taken for the new page's).
async function open(page, hash) {
  await page.goto('about:blank');
  await page.goto(`${consoleUrl}/console/${hash}`);
  await page.locator('main h1').first().waitFor();
}

function cli(...args) {
  return execFileSync(process.env.PAYRAIL_CLI, args, { encoding: 'utf8' });
}

async function api(method, path, key, body) {
  const response = await fetch(`${consoleUrl}${path}`, {
    method,
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json',
      'Idempotency-Key': `${path}-${Math.random()}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json().catch(() => null) };
}

async function until(what, probe, limitMs = timeoutMs) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => { setTimeout(resolve, 250); });
  }
}

// Presses Tab until the focused element matches `selector`; fails if it is never reached.
async function tabTo(page, selector, presses = 200) {
  for (let i = 0; i < presses; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
  }
  throw new Error(`${selector} is not reachable with Tab`);
}

// The checker itself works here: an image without a text alternative, added for a moment, is a
// critical violation it must report.
async function axeFindsAViolation(page) {
  await page.evaluate(axeSource);
  const impacts = await page.evaluate(async () => {
    const image = document.createElement('img');
    image.src = '/console/missing.png';
    document.querySelector('main').append(image);
    const results = await window.axe.run(document, { runOnly: ['image-alt'] });
    image.remove();
    return results.violations.map((violation) => violation.impact);
  });
  assert.deepEqual(impacts, ['critical'], 'axe reports a missing alt text');
}

async function developmentPhase() {
  const { browser, page } = await launch();
  await open(page, '');
  await axeFindsAViolation(page);
  await page.getByRole('heading', { name: 'Sign in to the Payrail console' }).waitFor();
  const notice = await page.locator('.notice.warning').innerText();
  assert.match(notice, /Development sign-in/);
  assert.match(notice, /PAYRAIL_IDP_HS256_SECRET/);
  assert.equal(await page.locator('#sign-in-provider').count(), 0);
  await check(page, '01-sign-in-development');
  await page.getByLabel('E-mail address').fill('developer@example.com');
  await page.getByRole('button', { name: 'Sign in (development)' }).click();
  await page.getByRole('heading', { name: 'Create your organization' }).waitFor();
  await check(page, '02-create-organization');
  await page.getByLabel('Legal name').fill('Developer Ltd');
  await page.getByLabel('Display name').fill('Developer');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByRole('heading', { name: 'Developer is ready' }).waitFor();
  assert.match(await page.locator('[data-secret]').innerText(), /^ck_test_/);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  const session = await page.evaluate(() => fetch('/console/session').then((r) => r.json()));
  writeFileSync(join(artifacts, 'development-organization.txt'), session.organizations[0].id);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the Payrail console' }).waitFor();
  await browser.close();
}

// An HTTPS receiver on 127.0.0.1 with the stack's certificate: records every delivery and
// verifies its signature with the endpoint's secret (docs/webhooks.md), as a customer would.
function startReceiver() {
  const received = [];
  let secret = null;
  const server = createServer({
    cert: readFileSync(join(tlsDir, 'server.pem')),
    key: readFileSync(join(tlsDir, 'server-key.pem')),
  }, (request, response) => {
    if (request.method === 'GET' && request.url === '/attack') {
      // Another site's page: a form that posts to the console's API, with no way to add headers.
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end(`<!doctype html><html lang="en"><title>another site</title><body>
        <form id="f" method="POST" action="${attackTarget}"></form>
        <script>document.getElementById('f').submit()</script></body></html>`);
      return;
    }
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = request.headers['service-signature'] || '';
      const parts = Object.fromEntries(header.split(',').map((item) => item.split('=')));
      const expected = secret && createHmac('sha256', secret).update(`${parts.t}.`).update(body).digest('hex');
      const valid = Boolean(expected && parts.v1 && expected.length === parts.v1.length
        && timingSafeEqual(Buffer.from(expected), Buffer.from(parts.v1)));
      received.push({ eventId: request.headers['service-event-id'], valid, body: body.toString('utf8') });
      response.writeHead(valid ? 200 : 400);
      response.end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      server, received, port: server.address().port, setSecret: (value) => { secret = value; },
    }));
  });
}

async function signInWithProvider(page) {
  await open(page, '');
  assert.equal(await page.locator('form input[type=email]').count(), 0,
    'no development sign-in without the development secret');
  await check(page, '03-sign-in-provider');
  await page.locator('#sign-in-provider').click();
  await page.locator('input[name=login]').fill('finance-lead');
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.locator('button[type=submit]', { hasText: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Create your organization' }).waitFor();
  await page.getByLabel('Legal name').fill('Finance Lead Ltd');
  await page.getByLabel('Display name').fill('Finance Lead');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  const session = await page.evaluate(() => fetch('/console/session').then((r) => r.json()));
  assert.equal(session.sign_in, 'oidc');
  assert.equal(session.subject, 'finance-lead');
  assert.equal(session.email, 'finance-lead@example.com');
  log('signed in at the OpenID provider');
  return session.organizations[0].id;
}

async function createEndpoint(page, receiver) {
  await open(page, '#/developers/webhooks');
  await page.getByLabel('URL (https)').fill(`https://127.0.0.1:${receiver.port}/hooks`);
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  const secret = await page.locator('[data-secret]').innerText();
  assert.match(secret, /^whsec_/);
  receiver.setSecret(secret);
  await page.locator('table', { hasText: `127.0.0.1:${receiver.port}` }).waitFor();
  await check(page, '04-webhooks');
}

async function createKeyFromTheKeyboard(page) {
  await open(page, '#/developers/keys');
  await page.getByLabel('Name').focus();
  await page.keyboard.type('browser-suite');
  await tabTo(page, 'button[type=submit]');
  await page.keyboard.press('Enter');
  const key = await page.locator('[data-secret]').innerText();
  assert.match(key, /^ck_test_/);
  await check(page, '05-api-keys');
  log('created a key from the keyboard');
  return key;
}

async function payoutWithTimeline(page, key) {
  const created = await api('POST', '/v1/payouts', key, {
    amount: '10.00', currency: 'USDC',
    destination: { network: 'polygon', address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed' },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const id = created.json.id;
  await until('the payout to complete', async () =>
    (await api('GET', `/v1/payouts/${id}`, key)).json.status === 'completed');
  // The key's last use shows on the keys page (recorded within a second).
  const { json: keys } = await api('GET', '/v1/api-keys', key);
  const keyId = keys.data.find((k) => k.name === 'browser-suite').id;
  await until('last used to show', async () => {
    await open(page, '#/developers/keys');
    return (await page.locator(`[data-last-used="${keyId}"]`).innerText()) !== 'never';
  });
  await open(page, '#/payouts');
  await page.getByRole('link', { name: id }).click();
  await page.getByRole('heading', { name: `Payout ${id}` }).waitFor();
  const timeline = await page.locator('table', { hasText: 'Status changes' }).innerText();
  for (const status of ['pending', 'screening', 'approved', 'processing', 'completed']) {
    assert.match(timeline, new RegExp(status), `timeline shows ${status}`);
  }
  assert.match(await page.locator('table', { hasText: 'Events sent for it' }).innerText(), /payout\.completed/);
  await check(page, '06-payout-detail');
  await open(page, '#/payouts');
  await check(page, '07-payouts');
  log(`found payout ${id} with its timeline`);
  return { keyId };
}

async function balanceOf(page, asset, which) {
  return Number(await page.locator(`[data-asset="${asset}"][data-balance="${which}"]`).innerText());
}

async function approvals(page, key) {
  const held = [];
  for (let i = 0; i < 3; i += 1) {
    const response = await api('POST', '/v1/payouts', key, {
      amount: '15000.00', currency: 'USDC',
      destination: { network: 'polygon', address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed' },
    });
    assert.equal(response.status, 202, JSON.stringify(response.json));
    held.push(response.json.id);
  }
  const [approved, rejected, untouched] = held;
  await open(page, '#/approvals');
  const heldBefore = await balanceOf(page, 'USDC', 'held');
  assert.equal(heldBefore, 45000);
  await check(page, '08-approvals');
  // Approve from the keyboard: Tab to the button, Enter.
  await tabTo(page, `button[aria-label="Approve ${approved}"]`);
  await page.keyboard.press('Enter');
  await page.locator(`button[aria-label="Approve ${approved}"]`).waitFor({ state: 'detached' });
  await page.locator(`button[aria-label="Reject ${rejected}"]`).click();
  await page.locator(`button[aria-label="Reject ${rejected}"]`).waitFor({ state: 'detached' });
  // The rejection released its hold at once; the approval's settles as the payout completes.
  assert.equal(await balanceOf(page, 'USDC', 'held') <= 30000, true);
  await until('the approved payout to complete', async () =>
    (await api('GET', `/v1/payouts/${approved}`, key)).json.status === 'completed');
  await open(page, '#/approvals');
  assert.equal(await balanceOf(page, 'USDC', 'held'), 15000);
  await check(page, '09-approvals-decided');
  await open(page, `#/payouts/${approved}`);
  const timeline = await page.locator('table', { hasText: 'Status changes' }).innerText();
  assert.match(timeline, /approve\s+finance-lead/, 'the approval shows who decided');
  await open(page, `#/payouts/${rejected}`);
  assert.match(await page.locator('table', { hasText: 'Status changes' }).innerText(), /reject\s+finance-lead/);
  log('approved one payout from the keyboard, rejected another, the balance moved');
  return untouched;
}

async function eventsAndRedelivery(page, receiver) {
  await until('signed deliveries at the receiver', async () =>
    receiver.received.some((r) => r.body.includes('"payout.completed"')));
  assert.ok(receiver.received.length > 0 && receiver.received.every((r) => r.valid),
    'every delivery is signed with the endpoint secret');
  const completed = receiver.received.find((r) => r.body.includes('"payout.completed"'));
  await open(page, '#/developers/events');
  await check(page, '10-events');
  await open(page, `#/developers/events/${completed.eventId}`);
  await until('the delivery attempt with its response status', async () => {
    await open(page, `#/developers/events/${completed.eventId}`);
    return (await page.locator('[data-status-code]').allInnerTexts()).includes('200');
  });
  await check(page, '11-event-detail');
  const before = receiver.received.filter((r) => r.eventId === completed.eventId).length;
  await page.getByRole('button', { name: 'Redeliver' }).click();
  await page.getByText('Redelivery scheduled').waitFor();
  await until('the redelivered event at the receiver', async () =>
    receiver.received.filter((r) => r.eventId === completed.eventId).length > before);
  assert.ok(receiver.received.every((r) => r.valid));
  log(`received signed events, redelivered ${completed.eventId}`);
}

async function balanceTransactionsCsv(page) {
  await open(page, '');
  const activity = await page.locator('table', { hasText: 'Balance transactions' }).innerText();
  for (const type of ['hold', 'settle', 'release', 'sandbox funding']) {
    assert.match(activity, new RegExp(type), `home lists ${type}`);
  }
  await check(page, '12-home');
  const [download] = await Promise.all([page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click()]);
  const path = join(artifacts, 'balance-transactions.csv');
  await download.saveAs(path);
  const lines = readFileSync(path, 'utf8').trim().split('\r\n');
  assert.equal(lines[0], 'id,created_at,type,mode,asset,amount,available_change,held_change,'
    + 'available_after,held_after,resource_object,resource_id');
  // Sandbox funding (3), the completed payout (hold, settle), the approved one (hold, settle),
  // the rejected one (hold, release), the one still held (hold).
  assert.equal(lines.length - 1, 10, lines.join('\n'));
  log('exported the balance transactions as CSV');
}

// The pages no scenario above reached: fiat payouts and collections (list and detail, the
// account number masked as the API masks it) and a webhook endpoint's deliveries.
async function remainingPages(page, key, receiver) {
  const fiat = await api('POST', '/v1/fiat-payouts', key, {
    amount: '100.00', currency: 'MXN', country: 'MX',
    beneficiary: { name: 'Ana Torres', account: { type: 'clabe', clabe: '012180001234567899' } },
  });
  assert.ok([201, 202].includes(fiat.status), JSON.stringify(fiat.json));
  const collection = await api('POST', '/v1/collections', key,
    { amount: '50.00', currency: 'CAD', method: 'eft' });
  assert.equal(collection.status, 201, JSON.stringify(collection.json));
  await open(page, '#/fiat-payouts');
  await check(page, '15-fiat-payouts');
  await open(page, `#/fiat-payouts/${fiat.json.id}`);
  const details = await page.locator('dl.fields').innerText();
  assert.ok(!details.includes('012180001234567899'), 'the CLABE is masked');
  assert.match(details, /7899/);
  await check(page, '16-fiat-payout-detail');
  await open(page, '#/collections');
  await check(page, '17-collections');
  await open(page, `#/collections/${collection.json.id}`);
  assert.match(await page.locator('table', { hasText: 'Status changes' }).innerText(), /awaiting payment/);
  await check(page, '18-collection-detail');
  await open(page, '#/developers/webhooks');
  await page.locator('table', { hasText: `127.0.0.1:${receiver.port}` }).getByRole('link').first().click();
  await page.locator('table', { hasText: 'Deliveries to this endpoint' }).getByText('succeeded').first().waitFor();
  await check(page, '19-webhook-endpoint');
}

async function revokeKey(page, key) {
  await open(page, '#/developers/keys');
  await page.getByRole('button', { name: 'Revoke browser-suite' }).click();
  await page.getByText('Revoked browser-suite.').waitFor();
  const refused = await api('GET', '/v1/balances', key);
  assert.equal(refused.status, 401);
  assert.equal(refused.json.error.code, 'api_key_invalid');
  log('revoked the key; the API refuses it');
}

async function kyb(page, organizationId) {
  await open(page, '#/organization');
  await page.getByLabel('Legal name').fill('Finance Lead Ltd');
  await page.getByLabel('Registration number').fill('BC7654321');
  await page.getByLabel('Country of incorporation (ISO alpha-2)').fill('CA');
  await page.getByLabel('Full name').fill('Ada Lovelace');
  await page.getByLabel('Date of birth').fill('1985-12-10');
  await page.getByLabel('Ownership (%)').fill('100');
  await page.getByLabel('Country (ISO alpha-2)', { exact: true }).fill('GB');
  await page.getByLabel('Your reference').fill('doc-001');
  await page.getByRole('button', { name: 'Submit KYB' }).click();
  const row = page.locator('table', { hasText: 'Submissions' }).locator('tbody tr').first();
  await row.getByText('pending').waitFor();
  const submissionId = (await row.locator('td').first().innerText()).trim();
  await check(page, '13-organization-kyb');
  cli('kyb-review', '--submission', submissionId, '--to', 'in_review', '--operator', 'browser-suite');
  cli('kyb-review', '--submission', submissionId, '--to', 'verified', '--operator', 'browser-suite',
    '--notes', 'Documents match the registry.');
  await open(page, '#/organization');
  await page.getByText('The business is verified').waitFor();
  assert.match(await row.innerText(), /verified/);
  assert.match(await row.innerText(), /Documents match the registry\./);
  await check(page, '14-organization-verified');
  log(`submitted KYB ${submissionId} for ${organizationId}; the review outcome shows`);
}

async function crossSiteFormPost(page, receiver, key, heldId) {
  attackTarget = `${consoleUrl}/v1/payouts/${heldId}/approve`;
  const answer = page.waitForResponse((response) => response.url().endsWith(`/v1/payouts/${heldId}/approve`));
  await page.goto(`https://127.0.0.1:${receiver.port}/attack`);
  const response = await answer;
  // SameSite=Strict keeps the cookie off a cross-site post (401); a browser that sent it would
  // meet the CSRF check (403, tests/e2e/console_test.cc).
  assert.ok([401, 403].includes(response.status()), `cross-site post answered ${response.status()}`);
  const status = (await api('GET', `/v1/payouts/${heldId}`, key)).json.status;
  assert.equal(status, 'pending_approval', 'the cross-site form post changed nothing');
  log(`a cross-site form post was refused (${response.status()})`);
}

async function otherOrganizationUnreachable(page) {
  const other = readFileSync(join(artifacts, 'development-organization.txt'), 'utf8').trim();
  const status = await page.evaluate(async (org) => (await fetch('/v1/balances', {
    headers: { 'Payrail-Organization': org, 'Payrail-Mode': 'test' },
  })).status, other);
  assert.equal(status, 404, 'another organization is not reachable through the console');
}

async function signOut(page, context) {
  const [cookie] = (await context.cookies()).filter((c) => c.name === '__Host-payrail_console');
  assert.ok(cookie.secure && cookie.httpOnly && cookie.sameSite === 'Strict');
  await open(page, '');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to the Payrail console' }).waitFor();
  const after = await fetch(`${consoleUrl}/console/session`, {
    headers: { Cookie: `${cookie.name}=${cookie.value}` },
  }).then((r) => r.json());
  assert.equal(after.signed_in, false, 'the old cookie is no session any more');
  log('signed out');
}

async function providerPhase() {
  const receiver = await startReceiver();
  const { browser, context, page } = await launch();
  try {
    const organizationId = await signInWithProvider(page);
    await createEndpoint(page, receiver);
    const key = await createKeyFromTheKeyboard(page);
    await payoutWithTimeline(page, key);
    const untouched = await approvals(page, key);
    await eventsAndRedelivery(page, receiver);
    await balanceTransactionsCsv(page);
    await kyb(page, organizationId);
    await crossSiteFormPost(page, receiver, key, untouched);
    await open(page, '');
    await otherOrganizationUnreachable(page);
    await remainingPages(page, key, receiver);
    await revokeKey(page, key);
    await signOut(page, context);
  } finally {
    await browser.close();
    receiver.server.close();
  }
}

try {
  if (phase === 'development') await developmentPhase();
  else if (phase === 'oidc') await providerPhase();
  else throw new Error('usage: node console.mjs development|oidc');
  log('passed');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
