// Every call of the console goes through here: same origin, the session cookie (sent by the
// browser, never visible to scripts), the organization and mode, and on changes the session's
// CSRF token. No API key is ever used by the console.

export const state = {
  session: null,  // GET /console/session
  orgId: null,
  mode: 'test',
};

export class ApiError extends Error {
  constructor(status, envelope) {
    super(envelope?.message || `HTTP ${status}`);
    this.status = status;
    this.code = envelope?.code || 'unknown';
    this.param = envelope?.param || null;
    this.requestId = envelope?.request_id || null;
  }
}

let onSignedOut = () => {};
export function whenSignedOut(callback) { onSignedOut = callback; }

export async function request(method, path, { body, query, organization = true } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, value);
  }
  const headers = { Accept: 'application/json' };
  if (organization && state.orgId) {
    headers['Payrail-Organization'] = state.orgId;
    headers['Payrail-Mode'] = state.mode;
  }
  if (method !== 'GET' && state.session?.csrf_token) headers['X-CSRF-Token'] = state.session.csrf_token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method, headers, credentials: 'same-origin', cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new ApiError(response.status, json?.error);
    if (error.code === 'session_invalid') onSignedOut();
    throw error;
  }
  return json;
}

export const get = (path, query) => request('GET', path, { query });
export const post = (path, body) => request('POST', path, { body });
export const del = (path) => request('DELETE', path);

export async function loadSession() {
  state.session = await request('GET', '/console/session', { organization: false });
  return state.session;
}

export function currentOrganization() {
  return state.session?.organizations?.find((organization) => organization.id === state.orgId) || null;
}
