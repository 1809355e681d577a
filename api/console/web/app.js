// The console's shell: who is signed in, the organization and mode, the navigation, and a
// router over location.hash (#/payouts/po_...), so every page is /console/ and bookmarkable.
import { h, replace, announce, notice } from './dom.js';
import { state, loadSession, whenSignedOut, request } from './api.js';
import { signInPage, createOrganizationPage } from './page_sign_in.js';
import { homePage } from './page_home.js';
import { moneyListPage, moneyDetailPage } from './page_money.js';
import { approvalsPage } from './page_approvals.js';
import { keysPage, webhooksPage, endpointPage, eventsPage, eventPage } from './page_developers.js';
import { organizationPage } from './page_organization.js';

const routes = [
  [/^$/, () => homePage(), 'home'],
  [/^payouts$/, () => moneyListPage('payouts'), 'payouts'],
  [/^payouts\/([\w-]+)$/, (id) => moneyDetailPage('payouts', id), 'payouts'],
  [/^fiat-payouts$/, () => moneyListPage('fiat-payouts'), 'fiat-payouts'],
  [/^fiat-payouts\/([\w-]+)$/, (id) => moneyDetailPage('fiat-payouts', id), 'fiat-payouts'],
  [/^collections$/, () => moneyListPage('collections'), 'collections'],
  [/^collections\/([\w-]+)$/, (id) => moneyDetailPage('collections', id), 'collections'],
  [/^approvals$/, () => approvalsPage(), 'approvals'],
  [/^developers\/keys$/, () => keysPage(), 'keys'],
  [/^developers\/webhooks$/, () => webhooksPage(), 'webhooks'],
  [/^developers\/webhooks\/([\w-]+)$/, (id) => endpointPage(id), 'webhooks'],
  [/^developers\/events$/, () => eventsPage(), 'events'],
  [/^developers\/events\/([\w-]+)$/, (id) => eventPage(id), 'events'],
  [/^organization$/, () => organizationPage(), 'organization'],
];

const navigation = [
  [null, [['home', '#/', 'Home'], ['payouts', '#/payouts', 'Payouts'],
    ['fiat-payouts', '#/fiat-payouts', 'Fiat payouts'], ['collections', '#/collections', 'Collections'],
    ['approvals', '#/approvals', 'Approvals']]],
  ['Developers', [['keys', '#/developers/keys', 'API keys'],
    ['webhooks', '#/developers/webhooks', 'Webhooks'], ['events', '#/developers/events', 'Events']]],
  ['Settings', [['organization', '#/organization', 'Organization and KYB']]],
];

function currentPath() {
  return decodeURIComponent(window.location.hash.replace(/^#\/?/, ''));
}

function renderNavigation(active) {
  replace(document.getElementById('nav'), navigation.map(([group, items]) => [
    group ? h('div', { class: 'group', 'aria-hidden': 'true' }, group) : null,
    h('ul', { 'aria-label': group || 'Money' }, items.map(([key, href, text]) =>
      h('li', {}, h('a', { href, 'aria-current': key === active ? 'page' : null }, text)))),
  ]));
}

async function signOut() {
  try {
    await request('POST', '/console/sign-out', { organization: false });
  } finally {
    state.session = null;
    window.location.hash = '#/';
    await start();
  }
}

function renderHeader() {
  const { session } = state;
  const organizations = session.organizations;
  const organizationControl = h('select', {
    id: 'organization-select',
    onchange: (event) => {
      state.orgId = event.target.value;
      sessionStorage.setItem('payrail.org', state.orgId);
      route();
    },
  }, organizations.map((organization) =>
    h('option', { value: organization.id, selected: organization.id === state.orgId },
      `${organization.display_name} (${organization.role})`)));
  const modeControl = h('select', {
    id: 'mode-select',
    onchange: (event) => {
      state.mode = event.target.value;
      sessionStorage.setItem('payrail.mode', state.mode);
      document.body.classList.toggle('mode-live', state.mode === 'live');
      renderHeader();
      route();
    },
  }, h('option', { value: 'test', selected: state.mode === 'test' }, 'Test mode'),
  h('option', { value: 'live', selected: state.mode === 'live' }, 'Live mode'));
  replace(document.getElementById('top'),
    h('span', { class: 'brand' }, 'Payrail console'),
    h('span', { class: 'mode-badge' }, state.mode === 'live' ? 'LIVE DATA' : 'TEST DATA'),
    h('label', { for: 'organization-select' }, 'Organization'), organizationControl,
    h('label', { for: 'mode-select' }, 'Mode'), modeControl,
    h('span', { class: 'muted' }, session.email),
    h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'));
}

async function route() {
  const main = document.getElementById('main');
  const path = currentPath();
  const found = routes.find(([pattern]) => pattern.test(path));
  if (!found) {
    renderNavigation(null);
    replace(main, h('h1', { tabindex: '-1' }, 'Not found'), notice('No such page.', 'error'));
    return;
  }
  const [pattern, render, active] = found;
  renderNavigation(active);
  const content = await render(...path.match(pattern).slice(1));
  replace(main, content);
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
    announce(heading.textContent);
  }
}

async function start() {
  const main = document.getElementById('main');
  try {
    await loadSession();
  } catch (error) {
    replace(main, notice(`The console cannot reach the server: ${error.message}`, 'error'));
    return;
  }
  const { session } = state;
  document.body.classList.toggle('mode-live', false);
  if (!session.signed_in) {
    replace(document.getElementById('top'), h('span', { class: 'brand' }, 'Payrail console'));
    replace(document.getElementById('nav'));
    replace(main, signInPage(session, start));
    main.querySelector('h1')?.focus();
    return;
  }
  if (session.organizations.length === 0) {
    replace(document.getElementById('top'), h('span', { class: 'brand' }, 'Payrail console'),
      h('span', { class: 'muted' }, session.email),
      h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'));
    replace(document.getElementById('nav'));
    replace(main, createOrganizationPage(start));
    main.querySelector('h1')?.focus();
    return;
  }
  const remembered = sessionStorage.getItem('payrail.org');
  state.orgId = session.organizations.some((organization) => organization.id === remembered)
    ? remembered : session.organizations[0].id;
  state.mode = sessionStorage.getItem('payrail.mode') === 'live' ? 'live' : 'test';
  document.body.classList.toggle('mode-live', state.mode === 'live');
  renderHeader();
  await route();
}

whenSignedOut(() => {
  state.session = null;
  start();
});
window.addEventListener('hashchange', () => { if (state.session?.signed_in) route(); });
start();
