// Building the page: elements are created with their text set as text (never parsed as HTML), so
// nothing an API returns can become markup or script.

export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'value' || name === 'checked') {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

let uniqueCounter = 0;
export function uniqueId(prefix) {
  uniqueCounter += 1;
  return `${prefix}-${uniqueCounter}`;
}

// A label and its control, tied by id.
export function field(labelText, control, hint) {
  const id = control.id || uniqueId('field');
  control.id = id;
  const hintElement = hint ? h('div', { class: 'muted', id: `${id}-hint` }, hint) : null;
  if (hintElement) control.setAttribute('aria-describedby', hintElement.id);
  return h('div', {}, h('label', { for: id }, labelText), control, hintElement);
}

export function select(name, options, selected, extra = {}) {
  return h('select', { name, ...extra },
    options.map(([value, text]) => h('option', { value, selected: value === selected }, text)));
}

export function statusBadge(status) {
  return h('span', { class: `status ${status}` }, status.replaceAll('_', ' '));
}

export function link(href, text) {
  return h('a', { href }, text);
}

export function dateTime(iso) {
  if (!iso) return '—';
  return h('time', { datetime: iso }, iso.replace('T', ' ').replace('Z', ' UTC'));
}

export function fields(pairs) {
  return h('dl', { class: 'fields' },
    pairs.filter(([, value]) => value !== undefined).map(([name, value]) => [
      h('dt', {}, name), h('dd', {}, value === null || value === '' ? '—' : value),
    ]));
}

// A table with a caption, header cells with scope, and one row per item.
export function table(captionText, columns, rows, rowOf) {
  return h('table', {},
    h('caption', {}, captionText),
    h('thead', {}, h('tr', {}, columns.map((column) =>
      h('th', { scope: 'col', class: column.number ? 'number' : null }, column.title)))),
    h('tbody', {}, rows.length === 0
      ? h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, 'Nothing yet.'))
      : rows.map((row) => h('tr', {}, rowOf(row).map((cell, index) =>
        h('td', { class: columns[index].number ? 'number' : null }, cell))))));
}

export function notice(text, kind = '') {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : null }, text);
}

export function announce(text) {
  const region = document.getElementById('announcer');
  region.textContent = '';
  setTimeout(() => { region.textContent = text; }, 50);
}

// A secret shown once, with a button that copies it.
export function secretBox(labelText, secret) {
  const status = h('span', { role: 'status', class: 'muted' });
  const copy = h('button', {
    type: 'button', class: 'secondary',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(secret);
        status.textContent = 'Copied.';
      } catch {
        status.textContent = 'Copy failed: select the text and copy it.';
      }
    },
  }, 'Copy');
  return h('div', { class: 'notice warning' },
    h('p', {}, `${labelText} It is shown only this once: store it now.`),
    h('div', { class: 'secret' }, h('code', { 'data-secret': '' }, secret), copy, status));
}
