// Home: balances per asset, and the balance transactions behind them, filtered, paged and
// exported as CSV.
import { h, replace, table, notice, select, field, link, dateTime, announce } from './dom.js';
import { get, state } from './api.js';
import { pagedTable } from './list.js';
import { resourceHref, toCsv, download, dayStart, dayEnd } from './format.js';

const types = [['', 'All types'], ['sandbox_funding', 'Sandbox funding'], ['hold', 'Hold'],
  ['release', 'Release'], ['refund', 'Refund'], ['settle', 'Settle'], ['credit', 'Credit']];
const assets = [['', 'All assets'], ['USDC', 'USDC'], ['USDT', 'USDT'], ['ETH', 'ETH']];
const exportPagesMax = 100;  // 10,000 movements per export

export async function balancesCards() {
  const balances = await get('/v1/balances');
  return h('div', { class: 'cards', id: 'balances' }, balances.data.map((balance) =>
    h('section', { class: 'card', 'aria-label': `${balance.asset} balance` },
      h('h3', {}, balance.asset),
      h('dl', {},
        h('dt', {}, 'Available'), h('dd', { 'data-asset': balance.asset, 'data-balance': 'available' }, balance.available),
        h('dt', {}, 'Held'), h('dd', { 'data-asset': balance.asset, 'data-balance': 'held' }, balance.held)))));
}

function transactionRow(transaction) {
  const href = resourceHref(transaction.resource);
  return [dateTime(transaction.created_at), transaction.type.replaceAll('_', ' '), transaction.asset,
    transaction.amount, transaction.available_change, transaction.held_change,
    transaction.available_after, transaction.held_after,
    href ? link(href, transaction.resource.id) : '—'];
}

const columns = [{ title: 'Date' }, { title: 'Type' }, { title: 'Asset' },
  { title: 'Amount', number: true }, { title: 'Available change', number: true },
  { title: 'Held change', number: true }, { title: 'Available after', number: true },
  { title: 'Held after', number: true }, { title: 'Resource' }];

async function exportCsv(filters, status) {
  const rows = [];
  let cursor;
  for (let page = 0; page < exportPagesMax; page += 1) {
    const result = await get('/v1/balance-transactions', { ...filters, limit: 100, starting_after: cursor });
    for (const t of result.data) {
      rows.push([t.id, t.created_at, t.type, t.mode, t.asset, t.amount, t.available_change,
        t.held_change, t.available_after, t.held_after, t.resource?.object, t.resource?.id]);
    }
    if (!result.has_more) break;
    cursor = result.next_cursor;
  }
  download(`balance-transactions-${state.orgId}-${state.mode}.csv`, toCsv(
    ['id', 'created_at', 'type', 'mode', 'asset', 'amount', 'available_change', 'held_change',
      'available_after', 'held_after', 'resource_object', 'resource_id'], rows));
  status.textContent = `Exported ${rows.length} balance transactions.`;
  announce(status.textContent);
}

export async function homePage() {
  const page = h('div', {}, h('h1', {}, 'Home'));
  try {
    page.append(h('h2', {}, 'Balances'), await balancesCards());
  } catch (error) {
    page.append(notice(`Balances could not be loaded: ${error.message}`, 'error'));
  }
  const asset = select('asset', assets, '');
  const type = select('type', types, '');
  const from = h('input', { type: 'date', name: 'from' });
  const to = h('input', { type: 'date', name: 'to' });
  const status = h('p', { role: 'status', class: 'muted' });
  const filters = () => ({ asset: asset.value, type: type.value, created_gte: dayStart(from.value),
    created_lte: dayEnd(to.value) });
  const list = pagedTable({
    caption: 'Balance transactions, newest first',
    columns,
    rowOf: transactionRow,
    fetchPage: (cursor) => get('/v1/balance-transactions', { ...filters(), starting_after: cursor }),
  });
  const form = h('form', {
    class: 'filters', 'aria-label': 'Filter balance transactions',
    onsubmit: (event) => { event.preventDefault(); list.reload(); },
  }, field('Asset', asset), field('Type', type), field('From (UTC day)', from), field('To (UTC day)', to),
  h('button', { type: 'submit' }, 'Apply filters'),
  h('button', {
    type: 'button', class: 'secondary', id: 'export-csv',
    onclick: () => exportCsv(filters(), status).catch((error) => { status.textContent = error.message; }),
  }, 'Export CSV'));
  page.append(h('h2', {}, 'Activity'), form, list.element, status);
  await list.reload();
  return page;
}
