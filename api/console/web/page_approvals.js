// Approvals: payouts and fiat payouts waiting in pending_approval, approved or rejected by a
// member; the balances above show the held amounts move.
import { h, replace, notice, link, dateTime, statusBadge, table } from './dom.js';
import { get } from './api.js';
import { kinds, decisionButtons } from './page_money.js';
import { balancesCards } from './page_home.js';

async function pendingTable(kind, refresh) {
  const config = kinds[kind];
  const pending = await get(config.api, { status: 'pending_approval', limit: 100 });
  return table(`${config.title} waiting for approval`,
    [{ title: 'ID' }, { title: 'Amount', number: true }, { title: 'Currency' }, { title: 'Destination' },
      { title: 'Created' }, { title: 'Decision' }], pending.data,
    (item) => [link(`#/${kind}/${item.id}`, item.id), item.amount, item.currency,
      config.destination(item), dateTime(item.created_at), decisionButtons(kind, item, refresh)]);
}

export async function approvalsPage() {
  const page = h('div', {});
  const refresh = async () => {
    const body = h('div', {});
    try {
      body.append(h('h2', {}, 'Balances'), await balancesCards(),
        h('h2', {}, 'Payouts'), await pendingTable('payouts', refresh),
        h('h2', {}, 'Fiat payouts'), await pendingTable('fiat-payouts', refresh));
    } catch (error) {
      body.append(notice(error.message, 'error'));
    }
    replace(page, h('h1', {}, 'Approvals'),
      h('p', {}, 'Payouts above the auto-approval limit wait here for a member. Every decision '
        + 'is recorded with who made it (see the payout\'s timeline).'), body);
    // A decision removed the button that had the focus: keep keyboard users on this page.
    if (!page.contains(document.activeElement) && page.isConnected) page.querySelector('h1').focus();
  };
  await refresh();
  return page;
}
