// A paginated table over a /v1 list (the list envelope and `starting_after`), with Previous and
// Next that keep the cursors of the pages seen.
import { h, replace, table, notice } from './dom.js';

export function pagedTable({ caption, columns, rowOf, fetchPage }) {
  const container = h('div', {});
  const cursors = [null];
  let index = 0;

  async function show() {
    let page;
    try {
      page = await fetchPage(cursors[index]);
    } catch (error) {
      replace(container, notice(`Could not load: ${error.message}`, 'error'));
      return;
    }
    if (page.next_cursor) cursors[index + 1] = page.next_cursor;
    const previous = h('button', {
      type: 'button', class: 'secondary', disabled: index === 0,
      onclick: () => { index -= 1; show(); },
    }, 'Previous page');
    const next = h('button', {
      type: 'button', class: 'secondary', disabled: !page.has_more,
      onclick: () => { index += 1; show(); },
    }, 'Next page');
    replace(container,
      table(caption, columns, page.data, rowOf),
      h('div', { class: 'pager' }, previous, next, h('span', { class: 'muted' }, `Page ${index + 1}`)));
  }

  return { element: container, reload: () => { cursors.length = 1; index = 0; return show(); } };
}
