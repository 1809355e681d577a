// Shared wording: resource links, amounts, and the CSV a finance team reconciles with.

const resourcePaths = { payout: 'payouts', fiat_payout: 'fiat-payouts', collection: 'collections' };

export function resourceHref(resource) {
  const path = resource && resourcePaths[resource.object];
  return path ? `#/${path}/${resource.id}` : null;
}

export function csvCell(value) {
  const text = value === null || value === undefined ? '' : String(value);
  // A cell a spreadsheet would run as a formula is quoted with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?[0-9]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(header, rows) {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

export function download(fileName, text, type = 'text/csv') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// <input type="date"> values as the API's created_gte / created_lte bounds (UTC days).
export function dayStart(date) { return date ? `${date}T00:00:00Z` : undefined; }
export function dayEnd(date) { return date ? `${date}T23:59:59Z` : undefined; }
