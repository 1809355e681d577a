// Developers: API keys (create with scopes, the secret shown once, revoke, last used), webhook
// endpoints (create with events, the secret shown once, delete, deliveries), and the event log
// with every delivery attempt and redelivery.
import { h, replace, notice, link, dateTime, statusBadge, table, field, secretBox, select, announce, fields } from './dom.js';
import { get, post, del, state } from './api.js';
import { pagedTable } from './list.js';

const scopes = ['payouts:write', 'payouts:read', 'balances:read', 'webhooks:write', 'webhooks:read',
  'organization:read', 'organization:write', 'collections:write', 'collections:read'];
const eventTypes = ['payout.created', 'payout.processing', 'payout.completed', 'payout.failed',
  'payout.blocked', 'payout.pending_approval', 'payout.cancelled', 'fiat_payout.processing',
  'fiat_payout.completed', 'fiat_payout.failed', 'fiat_payout.blocked', 'fiat_payout.pending_approval',
  'fiat_payout.cancelled', 'collection.received', 'collection.settled', 'collection.failed',
  'collection.expired', 'collection.cancelled'];

function checkboxes(legend, name, values, checked) {
  return h('fieldset', {}, h('legend', {}, legend), values.map((value) =>
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', name, value, checked: checked(value) }), value)));
}

function checkedValues(form, name) {
  return [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((input) => input.value);
}

function errorText(error) {
  return error.param ? `${error.message} (${error.param})` : error.message;
}

export async function keysPage() {
  const page = h('div', {});
  const created = h('div', {});
  const status = h('p', { role: 'status' });
  const list = pagedTable({
    caption: `API keys in ${state.mode} mode`,
    columns: [{ title: 'Name' }, { title: 'Prefix' }, { title: 'Scopes' }, { title: 'Created' },
      { title: 'Last used' }, { title: 'State' }, { title: 'Action' }],
    rowOf: (key) => [key.name || '—', h('code', {}, key.prefix), key.scopes.join(', '), dateTime(key.created_at),
      h('span', { 'data-last-used': key.id }, key.last_used_at ? dateTime(key.last_used_at) : 'never'),
      statusBadge(key.revoked ? 'revoked' : 'active'),
      key.revoked ? '—' : h('button', {
        type: 'button', class: 'danger', 'aria-label': `Revoke ${key.name || key.prefix}`,
        onclick: async () => {
          try {
            await del(`/v1/api-keys/${key.id}`);
            status.textContent = `Revoked ${key.name || key.prefix}.`;
            announce(status.textContent);
            await list.reload();
          } catch (error) { status.textContent = errorText(error); }
        },
      }, 'Revoke')],
    fetchPage: (cursor) => get('/v1/api-keys', { starting_after: cursor }),
  });
  const name = h('input', { type: 'text', name: 'name', maxlength: 100 });
  const form = h('form', {
    class: 'stacked', 'aria-label': 'Create an API key',
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        const key = await post('/v1/api-keys', { mode: state.mode, name: name.value || undefined,
          scopes: checkedValues(form, 'scopes') });
        replace(created, secretBox(`The ${key.mode} key ${key.name || key.prefix} was created.`, key.key));
        created.querySelector('button').focus();
        name.value = '';
        await list.reload();
      } catch (error) {
        replace(created, notice(errorText(error), 'error'));
      }
    },
  }, field('Name', name), checkboxes('Scopes', 'scopes', scopes, () => true),
  h('div', {}, h('button', { type: 'submit' }, `Create ${state.mode} key`)));
  replace(page, h('h1', {}, 'API keys'),
    h('p', {}, 'Keys are for your servers. The console never uses one.'),
    h('h2', {}, 'Create a key'), form, created, h('h2', {}, 'Keys'), status, list.element);
  await list.reload();
  return page;
}

export async function webhooksPage() {
  const page = h('div', {});
  const created = h('div', {});
  const status = h('p', { role: 'status' });
  const list = pagedTable({
    caption: `Webhook endpoints in ${state.mode} mode`,
    columns: [{ title: 'Endpoint' }, { title: 'URL' }, { title: 'Events' }, { title: 'Created' }, { title: 'Action' }],
    rowOf: (endpoint) => [link(`#/developers/webhooks/${endpoint.id}`, endpoint.id), endpoint.url,
      endpoint.events.join(', '), dateTime(endpoint.created_at),
      h('button', {
        type: 'button', class: 'danger', 'aria-label': `Delete ${endpoint.url}`,
        onclick: async () => {
          try {
            await del(`/v1/webhooks/${endpoint.id}`);
            status.textContent = `Deleted ${endpoint.url}.`;
            announce(status.textContent);
            await list.reload();
          } catch (error) { status.textContent = errorText(error); }
        },
      }, 'Delete')],
    fetchPage: (cursor) => get('/v1/webhooks', { starting_after: cursor }),
  });
  const url = h('input', { type: 'url', name: 'url', required: true, placeholder: 'https://example.com/hooks' });
  const form = h('form', {
    class: 'stacked', 'aria-label': 'Create a webhook endpoint',
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        const endpoint = await post('/v1/webhooks', { url: url.value, events: checkedValues(form, 'events') });
        replace(created, secretBox(`The endpoint ${endpoint.url} was created; verify its signatures with this secret.`,
          endpoint.secret));
        created.querySelector('button').focus();
        url.value = '';
        await list.reload();
      } catch (error) {
        replace(created, notice(errorText(error), 'error'));
      }
    },
  }, field('URL (https)', url), checkboxes('Events', 'events', eventTypes, (type) => type.startsWith('payout.')),
  h('div', {}, h('button', { type: 'submit' }, 'Create endpoint')));
  replace(page, h('h1', {}, 'Webhooks'), h('h2', {}, 'Create an endpoint'), form, created,
    h('h2', {}, 'Endpoints'), status, list.element);
  await list.reload();
  return page;
}

function attemptsTable(attempts) {
  return table('Attempts', [{ title: '#', number: true }, { title: 'At' }, { title: 'Response status' },
    { title: 'Latency (ms)', number: true }, { title: 'Error' }], attempts,
  (attempt) => [attempt.number, dateTime(attempt.attempted_at),
    attempt.status_code === null ? 'no response' : h('span', { 'data-status-code': '' }, String(attempt.status_code)),
    attempt.latency_ms, attempt.error || '—']);
}

function deliverySection(delivery, title) {
  return h('section', { 'aria-label': title },
    h('h3', {}, title),
    fields([['Delivery', delivery.id], ['Status', statusBadge(delivery.status)],
      ['Attempts', String(delivery.attempt_count)], ['Next attempt', dateTime(delivery.next_attempt_at)]]),
    attemptsTable(delivery.attempts));
}

export async function endpointPage(id) {
  const list = pagedTable({
    caption: 'Deliveries to this endpoint, newest first',
    columns: [{ title: 'Event' }, { title: 'Type' }, { title: 'Status' }, { title: 'Attempts', number: true },
      { title: 'Last response' }, { title: 'Created' }],
    rowOf: (delivery) => {
      const last = delivery.attempts[delivery.attempts.length - 1];
      return [link(`#/developers/events/${delivery.event_id}`, delivery.event_id), delivery.event_type,
        statusBadge(delivery.status), delivery.attempt_count,
        last ? (last.status_code === null ? (last.error || 'no response') : String(last.status_code)) : '—',
        dateTime(delivery.created_at)];
    },
    fetchPage: (cursor) => get(`/v1/webhooks/${id}/deliveries`, { starting_after: cursor }),
  });
  await list.reload();
  return h('div', {}, h('h1', {}, `Webhook endpoint ${id}`), list.element);
}

export async function eventsPage() {
  const type = select('type', [['', 'All types'], ...eventTypes.map((t) => [t, t])], '');
  const list = pagedTable({
    caption: `Events in ${state.mode} mode, newest first`,
    columns: [{ title: 'Event' }, { title: 'Type' }, { title: 'Resource' }, { title: 'Created' }],
    rowOf: (event) => [link(`#/developers/events/${event.id}`, event.id), event.type, event.resource_id,
      dateTime(event.created_at)],
    fetchPage: (cursor) => get('/v1/events', { type: type.value, starting_after: cursor }),
  });
  const form = h('form', {
    class: 'filters', 'aria-label': 'Filter events',
    onsubmit: (event) => { event.preventDefault(); list.reload(); },
  }, field('Type', type), h('button', { type: 'submit' }, 'Apply filter'));
  await list.reload();
  return h('div', {}, h('h1', {}, 'Events'), form, list.element);
}

export async function eventPage(id) {
  const page = h('div', {});
  const status = h('p', { role: 'status' });
  const render = async () => {
    let found;
    try {
      found = await get(`/console/api/events/${id}/deliveries`);
    } catch (error) {
      replace(page, h('h1', {}, `Event ${id}`), notice(errorText(error), 'error'));
      return;
    }
    const { event, deliveries } = found;
    replace(page, h('h1', {}, `Event ${id}`),
      fields([['Type', event.type], ['Resource', event.resource_id], ['Sequence', String(event.sequence)],
        ['Created', dateTime(event.created_at)]]),
      h('div', { class: 'toolbar' },
        h('button', {
          type: 'button', id: 'redeliver',
          onclick: async () => {
            try {
              await post(`/v1/events/${id}/redeliver`);
              status.textContent = 'Redelivery scheduled to every subscribed endpoint.';
              announce(status.textContent);
            } catch (error) { status.textContent = errorText(error); }
          },
        }, 'Redeliver'),
        h('button', { type: 'button', class: 'secondary', onclick: render }, 'Refresh')),
      status,
      h('h2', {}, 'Deliveries'),
      deliveries.length === 0 ? h('p', { class: 'muted' }, 'No endpoint was subscribed to this event.')
        : deliveries.map((delivery) => deliverySection(delivery, `To ${delivery.endpoint_url}`)),
      h('h2', {}, 'Payload'),
      h('pre', { tabindex: '0', 'aria-label': 'Event payload' }, JSON.stringify(event.payload, null, 2)));
  };
  await render();
  return page;
}
