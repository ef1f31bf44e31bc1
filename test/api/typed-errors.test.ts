import { apiErrorRegistry, hasRegisteredDetails } from '../../shared/contracts/api-errors';
import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { referenceDocument, referenceSchemaValidator } from '../support/reference';

/**
 * GrowthBook's typed API errors (its `api-errors` registry): where GrowthBook answers a registered
 * code, Switchyard answers the same status, `code` and `details`, in the shapes the 5.0.1 document gives.
 */

let api: Api;
let org: TestOrg;
const detailsOf = {
  checklist_incomplete: referenceSchemaValidator('ApiErrorChecklistIncompleteDetails', 'growthbook-5.0.1-openapi.yaml'),
  invalid_status: referenceSchemaValidator('ApiErrorInvalidStatusDetails', 'growthbook-5.0.1-openapi.yaml'),
};

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg('Typed errors');
});
afterAll(() => api.close());

let counter = 0;
const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
const v2 = (method: string, path: string, body?: unknown) => api.request(method, `/api/v2${path}`, { key: org.keys.admin, body });

async function newExperiment(fields: Record<string, unknown> = {}, testOrg = org) {
  const response = await v1(
    'POST',
    '/experiments',
    {
      trackingKey: `typed-${Date.now()}-${++counter}`,
      name: `Experiment ${counter}`,
      variations: [
        { key: '0', name: 'Control' },
        { key: '1', name: 'Treatment' },
      ],
      ...fields,
    },
    testOrg.keys.admin,
  );
  expect(response.status).toBe(200);
  return response.body.experiment;
}

/** The body as the 5.0.1 document's 409 of the operation describes it for `code`. */
function expectRegistered(body: any, code: 'checklist_incomplete' | 'invalid_status') {
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'message']);
  expect(body.code).toBe(code);
  const valid = detailsOf[code](body.details);
  if (!valid) throw new Error(JSON.stringify(detailsOf[code].errors, null, 2));
  expect(hasRegisteredDetails(code, body.details)).toBe(true);
}

describe('the registry', () => {
  it('lists the codes and statuses of GrowthBook 5.0.1, each with the details its document gives', () => {
    const document = referenceDocument('growthbook-5.0.1-openapi.yaml');
    const documented = ['checklist_incomplete', 'invalid_status', 'pending_draft_publish_failed'] as const;

    for (const code of documented) expect(apiErrorRegistry[code].status).toBe(409);
    expect(apiErrorRegistry.conflict.status).toBe(409);
    const properties = (name: string) => Object.keys(document.components.schemas[name].properties).sort();
    expect(properties('ApiErrorChecklistIncompleteDetails')).toEqual(['remainingChecklistItems']);
    expect(properties('ApiErrorPendingDraftPublishFailedDetails')).toEqual(['failedFeatureDrafts']);
    expect(Object.keys(apiErrorRegistry.invalid_status.details.shape).sort()).toEqual(properties('ApiErrorInvalidStatusDetails'));
  });

  it('refuses details that are not the registered shape of their code', () => {
    expect(hasRegisteredDetails('invalid_status', { currentStatus: 'running' })).toBe(false);
    expect(hasRegisteredDetails('checklist_incomplete', { remainingChecklistItems: [{ key: 'x' }] })).toBe(false);
    expect(hasRegisteredDetails('not_found', undefined)).toBe(true);
  });
});

describe('checklist_incomplete', () => {
  it('answers an experiment start with an incomplete checklist with 409, the code and the remaining items', async () => {
    const fresh = await createTestOrg('Typed errors checklist');
    const draft = await newExperiment({}, fresh);

    const response = await v1('POST', `/experiments/${draft.id}/start`, {}, fresh.keys.admin);

    expect(response.status).toBe(409);
    expectRegistered(response.body, 'checklist_incomplete');
    expect(response.body.details.remainingChecklistItems).toEqual([
      { key: 'linkedChanges', required: true, status: 'incomplete', manual: false, reason: 'Add at least one linked feature, visual changeset, or URL redirect before starting.' },
      { key: 'sdkConnection', required: true, status: 'incomplete', manual: false, reason: 'Add an SDK connection before starting.' },
    ]);
  });
});

describe('invalid_status', () => {
  it('answers a start of a running experiment with the status found and the one needed', async () => {
    const running = await newExperiment({ status: 'running' });

    const response = await v1('POST', `/experiments/${running.id}/start`, { skipChecklist: true });

    expect(response.status).toBe(409);
    expectRegistered(response.body, 'invalid_status');
    expect(response.body.details).toEqual({ currentStatus: 'running', expectedStatuses: ['draft'] });
  });

  it('answers a stop of a draft with the status found and the ones a stop needs', async () => {
    const draft = await newExperiment();

    const response = await v1('POST', `/experiments/${draft.id}/stop`, { results: 'dnf' });

    expect(response.status).toBe(409);
    expectRegistered(response.body, 'invalid_status');
    expect(response.body.details).toEqual({ currentStatus: 'draft', expectedStatuses: ['running', 'stopped'] });
  });

  it('answers a schedule change of a stopped experiment', async () => {
    const stopped = await newExperiment({ status: 'running' });
    expect((await v1('POST', `/experiments/${stopped.id}/stop`, { results: 'dnf' })).status).toBe(200);

    const response = await v1('PUT', `/experiments/${stopped.id}/schedule`, {});

    expect(response.status).toBe(409);
    expectRegistered(response.body, 'invalid_status');
    expect(response.body.details.currentStatus).toBe('stopped');
  });
});

describe('conflict', () => {
  it('answers a publish that conflicts with the live version with 409 and the conflicts', async () => {
    const id = `typed-flag-${++counter}`;
    expect((await v1('POST', '/features', { id, valueType: 'string', defaultValue: 'blue' })).status).toBe(200);
    const first = (await v2('POST', `/features/${id}/revisions`, {})).body.revision.version;
    const second = (await v2('POST', `/features/${id}/revisions`, {})).body.revision.version;
    expect((await v2('PUT', `/features/${id}/revisions/${first}/default-value`, { defaultValue: 'green' })).status).toBe(200);
    expect((await v2('PUT', `/features/${id}/revisions/${second}/default-value`, { defaultValue: 'red' })).status).toBe(200);
    expect((await v2('POST', `/features/${id}/revisions/${first}/publish`, {})).status).toBe(200);

    const response = await v2('POST', `/features/${id}/revisions/${second}/publish`, {});

    expect(response.status).toBe(409);
    expect(response.body.code).toBe('conflict');
    expect(hasRegisteredDetails('conflict', response.body.details)).toBe(true);
    expect(response.body.details.conflicts.map((conflict: { key: string }) => conflict.key)).toEqual(['defaultValue']);
  });
});
