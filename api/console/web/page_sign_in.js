// Signing in (with the identity provider, or the development sign-in where the server has it)
// and, for a member of no organization yet, creating one.
import { h, field, notice, secretBox, replace } from './dom.js';
import { request } from './api.js';

export function signInPage(session, signedIn) {
  const methods = session.sign_in_methods;
  const status = h('div', { role: 'status' });
  const parts = [h('h1', { tabindex: '-1' }, 'Sign in to the Payrail console')];
  if (methods.oidc) {
    parts.push(h('p', {}, 'Sign in with your organization\'s identity provider.'),
      h('p', {}, h('a', { href: '/console/sign-in', class: 'button', id: 'sign-in-provider' },
        'Sign in with the identity provider')));
  }
  if (methods.development) {
    const email = h('input', { type: 'email', name: 'email', required: true, autocomplete: 'email' });
    const form = h('form', {
      class: 'stacked',
      onsubmit: async (event) => {
        event.preventDefault();
        status.replaceChildren();
        try {
          await request('POST', '/console/sign-in/development',
            { body: { email: email.value }, organization: false });
          await signedIn();
        } catch (error) {
          replace(status, notice(error.message, 'error'));
        }
      },
    },
    notice('Development sign-in: this server has the development session secret configured '
      + '(PAYRAIL_IDP_HS256_SECRET), so anyone who can reach it may sign in as any e-mail address. '
      + 'It does not exist in production, where members sign in with the identity provider.', 'warning'),
    field('E-mail address', email),
    h('div', {}, h('button', { type: 'submit' }, 'Sign in (development)')));
    parts.push(h('h2', {}, 'Development sign-in'), form);
  }
  if (!methods.oidc && !methods.development) {
    parts.push(notice('No sign-in method is configured on this server (docs/console.md).', 'error'));
  }
  parts.push(status);
  return h('div', { class: 'sign-in' }, parts);
}

export function createOrganizationPage(created) {
  const status = h('div', { role: 'status' });
  const legalName = h('input', { type: 'text', name: 'legal_name', required: true, maxlength: 200 });
  const displayName = h('input', { type: 'text', name: 'display_name', required: true, maxlength: 200 });
  const country = h('input', {
    type: 'text', name: 'country', required: true, maxlength: 2, value: 'CA', autocomplete: 'country',
  });
  const form = h('form', {
    class: 'stacked',
    onsubmit: async (event) => {
      event.preventDefault();
      status.replaceChildren();
      try {
        const organization = await request('POST', '/v1/organizations', {
          organization: false,
          body: { legal_name: legalName.value, display_name: displayName.value, country: country.value },
        });
        replace(page, h('h1', { tabindex: '-1' }, `${organization.display_name} is ready`),
          secretBox('Your organization has a test-mode API key for your servers.', organization.api_key.key),
          h('button', { type: 'button', onclick: created }, 'Open the console'));
        page.querySelector('h1').focus();
      } catch (error) {
        replace(status, notice(error.param ? `${error.param}: ${error.message}` : error.message, 'error'));
      }
    },
  },
  field('Legal name', legalName), field('Display name', displayName),
  field('Country (ISO 3166-1 alpha-2)', country),
  h('div', {}, h('button', { type: 'submit' }, 'Create organization')));
  const page = h('div', { class: 'sign-in' },
    h('h1', { tabindex: '-1' }, 'Create your organization'),
    h('p', {}, 'You are not a member of any organization yet. Create one: you will be its owner.'),
    form, status);
  return page;
}
