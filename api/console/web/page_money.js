// Payouts, fiat payouts and collections: lists with the API's filters and cursor pagination, and
// a detail page with the resource as the API shows it (account numbers masked by the API), the
// timeline of its status changes (who decided, for approvals) and the events sent for it.
import { h, replace, notice, select, field, link, dateTime, statusBadge, fields, table, announce } from './dom.js';
import { get, post, state } from './api.js';
import { pagedTable } from './list.js';
import { dayStart, dayEnd } from './format.js';

export const kinds = {
  payouts: {
    title: 'Payouts', singular: 'Payout', api: '/v1/payouts', history: '/console/api/payouts',
    statuses: ['pending', 'screening', 'approved', 'processing', 'completed', 'failed', 'blocked',
      'cancelled', 'pending_approval'],
    destination: (p) => `${p.destination?.network || ''} ${p.destination?.address || ''}`.trim(),
    approvable: true,
  },
  'fiat-payouts': {
    title: 'Fiat payouts', singular: 'Fiat payout', api: '/v1/fiat-payouts', history: '/console/api/fiat-payouts',
    statuses: ['pending', 'screening', 'processing', 'completed', 'blocked', 'failed', 'cancelled',
      'pending_approval'],
    destination: (p) => `${p.country || ''} ${p.beneficiary?.name || ''}`.trim(),
    approvable: true,
  },
  collections: {
    title: 'Collections', singular: 'Collection', api: '/v1/collections', history: '/console/api/collections',
    statuses: ['awaiting_payment', 'received', 'settled', 'failed', 'expired', 'cancelled'],
    destination: (c) => c.method || '',
    approvable: false,
  },
};

export function moneyColumns(kind) {
  return [{ title: 'ID' }, { title: 'Status' }, { title: 'Amount', number: true }, { title: 'Currency' },
    { title: kind === 'collections' ? 'Method' : 'Destination' }, { title: 'Created' }];
}

export function moneyRow(kind) {
  return (item) => [link(`#/${kind}/${item.id}`, item.id), statusBadge(item.status), item.amount,
    item.currency, kinds[kind].destination(item), dateTime(item.created_at)];
}

export async function moneyListPage(kind) {
  const config = kinds[kind];
  const status = select('status', [['', 'Any status'], ...config.statuses.map((s) => [s, s.replaceAll('_', ' ')])], '');
  const from = h('input', { type: 'date', name: 'from' });
  const to = h('input', { type: 'date', name: 'to' });
  // Fiat payouts also filter by the beneficiary's country.
  const country = kind === 'fiat-payouts'
    ? h('input', { type: 'text', name: 'country', maxlength: 2, size: 4, autocomplete: 'off' }) : null;
  const list = pagedTable({
    caption: `${config.title} in ${state.mode} mode, newest first`,
    columns: moneyColumns(kind),
    rowOf: moneyRow(kind),
    fetchPage: (cursor) => get(config.api, {
      status: status.value, country: country?.value.toUpperCase(), created_gte: dayStart(from.value),
      created_lte: dayEnd(to.value), starting_after: cursor,
    }),
  });
  const form = h('form', {
    class: 'filters', 'aria-label': `Filter ${config.title.toLowerCase()}`,
    onsubmit: (event) => { event.preventDefault(); list.reload(); },
  }, field('Status', status), country ? field('Country (ISO alpha-2)', country) : null,
  field('Created from (UTC day)', from), field('Created to (UTC day)', to),
  h('button', { type: 'submit' }, 'Apply filters'));
  await list.reload();
  return h('div', {}, h('h1', {}, config.title), form, list.element);
}

// Top-level members as rows; nested objects one level deep ("destination.address").
function flatten(resource) {
  const pairs = [];
  for (const [name, value] of Object.entries(resource)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, innerValue] of Object.entries(value)) {
        pairs.push([`${name}.${inner}`, typeof innerValue === 'object' && innerValue !== null
          ? JSON.stringify(innerValue) : innerValue]);
      }
    } else {
      pairs.push([name, Array.isArray(value) ? JSON.stringify(value) : value]);
    }
  }
  return pairs.map(([name, value]) => [name, value === null || value === undefined ? '—' : String(value)]);
}

export function timelineTable(timeline) {
  return table('Status changes, oldest first', [{ title: 'When' }, { title: 'From' }, { title: 'To' },
    { title: 'Trigger' }, { title: 'Decided by' }], timeline,
  (change) => [dateTime(change.occurred_at), change.from_status ? statusBadge(change.from_status) : 'created',
    statusBadge(change.to_status), change.trigger, change.actor || 'Payrail']);
}

export function eventsTable(events) {
  return table('Events sent for it', [{ title: 'Event' }, { title: 'Type' }, { title: 'Sequence', number: true },
    { title: 'Created' }], events,
  (event) => [link(`#/developers/events/${event.id}`, event.id), event.type, event.sequence, dateTime(event.created_at)]);
}

export function decisionButtons(kind, resource, done) {
  const status = h('span', { role: 'status' });
  const decide = async (action) => {
    try {
      await post(`${kinds[kind].api}/${resource.id}/${action}`);
      status.textContent = action === 'approve' ? `Approved ${resource.id}.` : `Rejected ${resource.id}.`;
      announce(status.textContent);
      await done(action);
    } catch (error) {
      status.textContent = `Could not ${action}: ${error.message}`;
    }
  };
  return h('div', { class: 'toolbar' },
    h('button', { type: 'button', 'data-action': 'approve', 'aria-label': `Approve ${resource.id}`, onclick: () => decide('approve') }, 'Approve'),
    h('button', { type: 'button', class: 'danger', 'data-action': 'reject', 'aria-label': `Reject ${resource.id}`, onclick: () => decide('reject') }, 'Reject'),
    status);
}

export async function moneyDetailPage(kind, id) {
  const config = kinds[kind];
  const page = h('div', {});
  let resource;
  let history;
  try {
    [resource, history] = await Promise.all([get(`${config.api}/${id}`), get(`${config.history}/${id}/history`)]);
  } catch (error) {
    return h('div', {}, h('h1', {}, `${config.singular} ${id}`), notice(error.message, 'error'));
  }
  const rerender = async () => {
    const fresh = await moneyDetailPage(kind, id);
    replace(page, ...fresh.childNodes);
  };
  replace(page,
    h('h1', {}, `${config.singular} ${id}`),
    h('p', {}, statusBadge(resource.status)),
    config.approvable && resource.status === 'pending_approval' ? decisionButtons(kind, resource, rerender) : null,
    h('h2', {}, 'Details'), fields(flatten(resource)),
    h('h2', {}, 'Timeline'), timelineTable(history.timeline),
    h('h2', {}, 'Events'), eventsTable(history.events));
  return page;
}
