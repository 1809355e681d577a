// Organization and KYB: the organization's standing, its business verification submissions
// with their review outcome, and a form to submit one.
import { h, replace, notice, dateTime, statusBadge, fields, field, table, select, announce } from './dom.js';
import { get, request, state } from './api.js';

const documentTypes = ['certificate_of_incorporation', 'articles_of_association', 'proof_of_address',
  'shareholder_register', 'government_id'];

function ownerFieldset(index) {
  return h('fieldset', { 'data-owner': '' }, h('legend', {}, `Beneficial owner ${index}`),
    field('Full name', h('input', { type: 'text', name: 'owner_name', required: true, maxlength: 200 })),
    field('Date of birth', h('input', { type: 'date', name: 'owner_dob', required: true })),
    field('Ownership (%)', h('input', { type: 'text', name: 'owner_pct', required: true, inputmode: 'decimal' })),
    field('Country (ISO alpha-2)', h('input', { type: 'text', name: 'owner_country', required: true, maxlength: 2 })));
}

function documentFieldset(index) {
  return h('fieldset', { 'data-document': '' }, h('legend', {}, `Document ${index}`),
    field('Type', select('document_type', documentTypes.map((t) => [t, t.replaceAll('_', ' ')]), documentTypes[0])),
    field('Your reference', h('input', { type: 'text', name: 'document_reference', required: true, maxlength: 200 })));
}

function kybForm(done) {
  const status = h('div', { role: 'status' });
  const owners = h('div', {}, ownerFieldset(1));
  const documents = h('div', {}, documentFieldset(1));
  const value = (root, name) => root.querySelector(`[name="${name}"]`).value;
  const form = h('form', {
    class: 'stacked', 'aria-label': 'Submit KYB',
    onsubmit: async (event) => {
      event.preventDefault();
      const body = {
        legal_name: value(form, 'legal_name'),
        registration_no: value(form, 'registration_no'),
        incorporation_country: value(form, 'incorporation_country'),
        beneficial_owners: [...owners.querySelectorAll('[data-owner]')].map((owner) => ({
          name: value(owner, 'owner_name'), dob: value(owner, 'owner_dob'),
          ownership_pct: value(owner, 'owner_pct'), country: value(owner, 'owner_country'),
        })),
        documents: [...documents.querySelectorAll('[data-document]')].map((document) => ({
          type: value(document, 'document_type'), reference: value(document, 'document_reference'),
        })),
      };
      try {
        const submission = await request('POST', '/v1/kyb', { body });
        announce(`KYB submitted: ${submission.id}`);
        await done(submission);
      } catch (error) {
        replace(status, notice(error.param ? `${error.param}: ${error.message}` : error.message, 'error'));
      }
    },
  },
  field('Legal name', h('input', { type: 'text', name: 'legal_name', required: true, maxlength: 200 })),
  field('Registration number', h('input', { type: 'text', name: 'registration_no', required: true, maxlength: 100 })),
  field('Country of incorporation (ISO alpha-2)', h('input', { type: 'text', name: 'incorporation_country', required: true, maxlength: 2 })),
  owners,
  h('div', {}, h('button', {
    type: 'button', class: 'secondary',
    onclick: () => owners.append(ownerFieldset(owners.children.length + 1)),
  }, 'Add a beneficial owner')),
  documents,
  h('div', {}, h('button', {
    type: 'button', class: 'secondary',
    onclick: () => documents.append(documentFieldset(documents.children.length + 1)),
  }, 'Add a document')),
  h('div', {}, h('button', { type: 'submit' }, 'Submit KYB')), status);
  return form;
}

export async function organizationPage() {
  const page = h('div', {});
  const render = async () => {
    let organization;
    let submissions;
    try {
      [organization, submissions] = await Promise.all([get('/v1/organization'), get('/v1/kyb')]);
    } catch (error) {
      replace(page, h('h1', {}, 'Organization and KYB'), notice(error.message, 'error'));
      return;
    }
    const role = state.session.organizations.find((o) => o.id === organization.id)?.role;
    replace(page, h('h1', {}, 'Organization and KYB'),
      fields([['Organization', organization.id], ['Legal name', organization.legal_name],
        ['Display name', organization.display_name], ['Country', organization.country],
        ['Status', statusBadge(organization.status)], ['KYB', statusBadge(organization.kyb_status)],
        ['Your role', role], ['Created', dateTime(organization.created_at)]]),
      h('h2', {}, 'KYB submissions'),
      table('Submissions and their review outcome, newest first', [{ title: 'Submission' }, { title: 'Status' },
        { title: 'Legal name' }, { title: 'Submitted' }, { title: 'Reviewed' }, { title: 'Review notes' }],
      submissions.data, (s) => [s.id, statusBadge(s.status), s.legal_name, dateTime(s.created_at),
        dateTime(s.reviewed_at), s.review_notes || '—']),
      organization.kyb_status === 'verified' ? notice('The business is verified: live mode is open.')
        : [h('h2', {}, 'Submit KYB'), kybForm(async () => { await render(); page.querySelector('h1').focus(); })]);
  };
  await render();
  return page;
}
