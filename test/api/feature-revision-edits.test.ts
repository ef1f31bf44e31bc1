import Ajv from 'ajv';
import fc from 'fast-check';
import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { createTestOrg, expectShape, startApi, type Api, type TestOrg } from '../support/api';
import { referenceDocument, referenceSchemaValidator } from '../support/reference';
import * as contract from '../../shared/contracts/feature-revision-edits';
import { addMember } from '../../shared/store/members';
import { createApiKey } from '../../shared/store/api-keys';
import { dueRampSchedules, scheduleControlling } from '../../shared/store/ramp-schedules';
import type { Role } from '../../shared/permissions';

let api: Api;
let org: TestOrg;
let clientKey: string;
const FILE = 'growthbook-5.0.1-openapi.yaml';
const validRevision = referenceSchemaValidator('FeatureRevisionV2', FILE);

/** A validator of one operation's 200 response as GrowthBook 5.0.1's document gives it inline. */
function responseValidator(path: string, method: string) {
  const document = referenceDocument(FILE);
  const schema = document.paths[path][method].responses['200'].content['application/json'].schema;
  return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile({ ...schema, components: document.components });
}
const validDiff = responseValidator('/v2/features/{id}/revisions/{version}/diff', 'get');
const validPreview = responseValidator('/v2/features/{id}/revisions/{version}/rebase/preview', 'post');

function expectValid(validate: ReturnType<typeof responseValidator>, value: unknown) {
  if (!validate(value)) throw new Error(JSON.stringify(validate.errors, null, 2));
}

const v1 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v1${path}`, { key, body });
const v2 = (method: string, path: string, body?: unknown, key = org.keys.admin) => api.request(method, `/api/v2${path}`, { key, body });

async function ok(response: Promise<{ status: number; body: any }>) {
  const { status, body } = await response;
  if (status !== 200) throw new Error(`expected 200, got ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** A revision answer: 200, the documented shape, valid against GrowthBook 5.0.1's `FeatureRevisionV2`. */
async function revisionOf(response: Promise<{ status: number; body: any }>, spec: { response: any } = contract.putFeatureRevisionRuleV2) {
  const body = await ok(response);
  expectShape(spec, body);
  if (!validRevision(body.revision)) throw new Error(JSON.stringify(validRevision.errors, null, 2));
  return body.revision;
}

let counter = 0;
/** A string feature on in production and dev, with one force rule `fr_vip` in production (revision 1). */
async function newFeature(body: Record<string, unknown> = {}) {
  const id = `edit-${++counter}`;
  await ok(
    v1('POST', '/features', {
      id,
      valueType: 'string',
      defaultValue: 'blue',
      environments: {
        production: { enabled: true, rules: [{ id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}' }] },
        dev: { enabled: true },
      },
      ...body,
    }),
  );
  return id;
}

const newDraft = async (id: string) => (await ok(v2('POST', `/features/${id}/revisions`, {}))).revision;
const getRevision = async (id: string, version: number) => (await ok(v2('GET', `/features/${id}/revisions/${version}`))).revision;
const publish = (id: string, version: number) => ok(v2('POST', `/features/${id}/revisions/${version}/publish`, {}));
const liveFeature = async (id: string) => (await ok(v1('GET', `/features/${id}`))).feature;
const revisionCount = async (id: string) => (await ok(v2('GET', `/features/${id}/revisions`))).total as number;

/** The served payload now. */
const payload = async () => (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;

/** What the real SDK answers for a user, from the payload as served now. */
async function sdkValue(id: string, attributes: Record<string, unknown> = { id: 'u1' }) {
  return new GrowthBook({ attributes }).initSync({ payload: await payload() }).getFeatureValue(id, 'none');
}

/** A running experiment with two variations. */
async function experiment() {
  const body = await ok(
    v1('POST', '/experiments', {
      trackingKey: `exp-${++counter}`,
      name: 'Colours',
      status: 'running',
      variations: [{ key: 'c', name: 'Control' }, { key: 't', name: 'Treatment' }],
      phases: [{ name: 'Main', dateStarted: new Date().toISOString(), coverage: 1 }],
    }),
  );
  return { id: body.experiment.id as string, variationIds: body.experiment.variations.map((v: { variationId: string }) => v.variationId) as string[] };
}

/** A member with a personal access token, with a global role and project roles. */
async function member(role: Role, projectRoles: Array<{ project: string; role: Role }>) {
  const created = await addMember(org.orgId, {
    name: 'M',
    email: `m-${++counter}@example.com`,
    role,
    projectRoles: projectRoles.map((entry) => ({ ...entry, environments: [], limitAccessByEnvironment: false })),
  } as Parameters<typeof addMember>[1]);
  return (await createApiKey({ orgId: org.orgId, role: 'user', memberId: created.id, description: 'edits' })).secret;
}

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
  clientKey = (await ok(v1('POST', '/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' }))).sdkConnection.key;
});

afterAll(async () => {
  await api.close();
});

describe('adding rules', () => {
  it('adds force, rollout and experiment rules to a draft in GrowthBook 5 shapes; the SDK sees them only once published', async () => {
    const id = await newFeature();
    const exp = await experiment();
    const draft = await newDraft(id);
    const rules = `/features/${id}/revisions/${draft.version}/rules`;

    await revisionOf(v2('POST', rules, { rule: { value: 'green', condition: '{"country":"NL"}', allEnvironments: true } }), contract.postFeatureRevisionRuleAddV2);
    await revisionOf(v2('POST', rules, { rule: { type: 'force', value: 'teal', coverage: 0.5, hashAttribute: 'id', environments: ['dev'] } }), contract.postFeatureRevisionRuleAddV2);
    const revision = await revisionOf(
      v2('POST', rules, { rule: { type: 'experiment-ref', experimentId: exp.id, variations: [{ value: 'red' }, { value: 'pink' }], environments: ['production'] } }),
      contract.postFeatureRevisionRuleAddV2,
    );

    const [vip, force, ref, rollout] = revision.rules;
    expect(vip).toMatchObject({ id: 'fr_vip', allEnvironments: false, environments: ['production'] });
    expect(force).toMatchObject({ type: 'force', value: 'green', condition: '{"country":"NL"}', allEnvironments: true, enabled: true });
    expect(rollout).toMatchObject({ type: 'rollout', value: 'teal', coverage: 0.5, hashAttribute: 'id', allEnvironments: false, environments: ['dev'] });
    expect(ref).toMatchObject({
      type: 'experiment-ref',
      experimentId: exp.id,
      variations: [
        { variationId: exp.variationIds[0], value: 'red' },
        { variationId: exp.variationIds[1], value: 'pink' },
      ],
    });
    expect(force.id).toMatch(/^fr_/);
    expect(await sdkValue(id, { id: 'u1', country: 'NL' })).toBe('blue');
    expect((await liveFeature(id)).environments.production.rules).toHaveLength(1);

    await publish(id, draft.version);

    expect(await sdkValue(id, { id: 'u1', country: 'NL' })).toBe('green');
    expect((await liveFeature(id)).environments.dev.rules.map((rule: { type: string }) => rule.type)).toEqual(['force', 'rollout']);
  });

  it('adds a rule to a new draft with "new", titled as asked', async () => {
    const id = await newFeature();

    const revision = await revisionOf(
      v2('POST', `/features/${id}/revisions/new/rules`, { rule: { value: 'green', allEnvironments: true }, revisionTitle: 'Green', revisionComment: 'why' }),
      contract.postFeatureRevisionRuleAddV2,
    );

    expect(revision).toMatchObject({ version: 2, status: 'draft', comment: 'why' });
    expect(revision.rules).toHaveLength(2);
  });

  it.each([
    ['an environment the organization does not have', 400, { value: 'x', environments: ['mars'] }, /\[rule\.environments\.0\] mars is not an environment/],
    ['no environment at all', 400, { value: 'x' }, /\[rule\.allEnvironments\]/],
    ['a condition that is not JSON', 400, { value: 'x', allEnvironments: true, condition: '{vip' }, /\[rule\.condition\]/],
    ['a coverage above 1', 400, { value: 'x', allEnvironments: true, coverage: 2 }, /\[rule\.coverage\]/],
    ['a saved group that does not exist', 400, { value: 'x', allEnvironments: true, savedGroups: [{ match: 'all', ids: ['grp_nope'] }] }, /saved group grp_nope does not exist/],
    ['a prerequisite flag that does not exist', 400, { value: 'x', allEnvironments: true, prerequisites: [{ id: 'nope', condition: '{"value":true}' }] }, /feature nope does not exist/],
    ['a config-backed value', 400, { value: '{}', config: 'cfg', allEnvironments: true }, /\[rule\.config\]/],
    ['a sparse value', 400, { value: '{}', sparse: true, allEnvironments: true }, /\[rule\.sparse\]/],
    ['a safe rollout', 400, { type: 'safe-rollout', controlValue: 'a', variationValue: 'b', hashAttribute: 'id', safeRolloutFields: {}, allEnvironments: true }, /safe-rollout rules are not supported/],
    ['an experiment that does not exist', 404, { type: 'experiment-ref', experimentId: 'exp_nope', variations: [{ value: 'a' }], allEnvironments: true }, /exp_nope/],
    ['variation ids for some variations only', 400, { type: 'experiment-ref', experimentId: 'exp_x', variations: [{ value: 'a', variationId: 'v' }, { value: 'b' }], allEnvironments: true }, /all variations or none/],
    ['an unknown rule type', 400, { type: 'experiment', value: 'x', allEnvironments: true }, /\[rule\.type\]/],
  ])('refuses %s with %i, storing nothing and leaving no draft behind for "new"', async (_case, status, rule, message) => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const [edit, fresh] = await Promise.all([
      v2('POST', `/features/${id}/revisions/${draft.version}/rules`, { rule }),
      v2('POST', `/features/${id}/revisions/new/rules`, { rule }),
    ]);

    expect([edit.status, fresh.status]).toEqual([status, status]);
    expect(edit.body.message).toMatch(message);
    expect((await getRevision(id, draft.version)).rules.map((r: { id: string }) => r.id)).toEqual(['fr_vip']);
    expect(await revisionCount(id)).toBe(2);
  });

  it('refuses a value the feature type cannot hold, naming the field', async () => {
    const id = await newFeature({ valueType: 'number', defaultValue: '1', environments: {} });

    const response = await v2('POST', `/features/${id}/revisions/new/rules`, { rule: { value: 'twelve', allEnvironments: true } });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[rule\.value\] Must be a valid number/);
    expect(await revisionCount(id)).toBe(1);
  });
});

describe('patching a rule', () => {
  it('patches fields and scope of a rule; a coverage below 1 makes a force rule a rollout', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    const at = `/features/${id}/revisions/${draft.version}/rules/fr_vip`;

    await revisionOf(v2('PUT', at, { rule: { value: 'silver', condition: '{"vip":true,"tier":2}' } }));
    const revision = await revisionOf(v2('PUT', at, { rule: { coverage: 0.25, allEnvironments: true, savedGroups: [] } }));

    expect(revision.rules).toEqual([
      expect.objectContaining({ id: 'fr_vip', type: 'rollout', value: 'silver', coverage: 0.25, hashAttribute: 'id', condition: '{"vip":true,"tier":2}', allEnvironments: true }),
    ]);
    expect((await liveFeature(id)).environments.production.rules[0]).toMatchObject({ type: 'force', value: 'gold' });
    expect(await sdkValue(id, { id: 'u1', vip: true })).toBe('gold');

    const backToForce = await v2('PUT', at, { rule: { type: 'force' } });
    expect(backToForce.status).toBe(400);
    expect(backToForce.body.message).toMatch(/\[rule\.type\] rule fr_vip covers less than everyone/);
    const forced = await revisionOf(v2('PUT', at, { rule: { type: 'force', coverage: 1 } }));
    expect(forced.rules[0]).toMatchObject({ type: 'force', value: 'silver' });
    expect(forced.rules[0].coverage).toBeUndefined();
    const narrowed = await revisionOf(v2('PUT', at, { rule: { environments: ['dev'] } }));
    expect(narrowed.rules).toEqual([expect.objectContaining({ id: 'fr_vip', allEnvironments: false, environments: ['dev'] })]);
    await publish(id, draft.version);
    expect(await sdkValue(id, { id: 'u1', vip: true })).toBe('blue');
  });

  it.each([
    ['another rule type', 400, { type: 'experiment-ref' }, /type cannot be changed/],
    ['a field the rule type does not have', 400, { experimentId: 'exp_1' }, /\[rule\.experimentId\] rule fr_vip is a force rule/],
    ['a condition that is not JSON', 400, { condition: 'vip' }, /\[rule\.condition\]/],
    ['an unknown environment', 400, { environments: ['mars'] }, /mars is not an environment/],
    ['an unknown field', 400, { colour: 'red' }, /\[rule\]/],
  ])('refuses %s with %i and leaves the draft unchanged', async (_case, status, rule, message) => {
    const id = await newFeature();
    const draft = await newDraft(id);

    const response = await v2('PUT', `/features/${id}/revisions/${draft.version}/rules/fr_vip`, { rule });

    expect(response.status).toBe(status);
    expect(response.body.message).toMatch(message);
    expect((await getRevision(id, draft.version)).rules).toEqual([expect.objectContaining({ id: 'fr_vip', type: 'force', value: 'gold', condition: '{"vip":true}' })]);
  });

  it('answers 404 for a rule the draft does not have, making no draft for "new"', async () => {
    const id = await newFeature();

    const response = await v2('PUT', `/features/${id}/revisions/new/rules/fr_nope`, { rule: { value: 'x' } });

    expect(response.status).toBe(404);
    expect(response.body.message).toBe('Rule "fr_nope" not found');
    expect(await revisionCount(id)).toBe(1);
  });
});

describe('metadata and holdout', () => {
  it('changes description, owner, tags, comment and title in the draft only, live on publish', async () => {
    const id = await newFeature({ description: 'old', tags: ['a'] });
    const draft = await newDraft(id);

    const revision = await revisionOf(
      v2('PUT', `/features/${id}/revisions/${draft.version}/metadata`, { description: 'new', owner: org.admin.email, tags: ['b', 'c'], comment: 'retag', title: 'Retag' }),
      contract.putFeatureRevisionMetadataV2,
    );

    expect(revision).toMatchObject({ comment: 'retag', metadata: { description: 'new', owner: org.admin.memberId, tags: ['b', 'c'] } });
    expect(await liveFeature(id)).toMatchObject({ description: 'old', tags: ['a'] });
    await publish(id, draft.version);
    expect(await liveFeature(id)).toMatchObject({ description: 'new', tags: ['b', 'c'], owner: org.admin.memberId });
  });

  it('moves the feature to another project only for a caller who may publish it in both', async () => {
    const a = (await ok(v1('POST', '/projects', { name: `A${++counter}` }))).project.id;
    const b = (await ok(v1('POST', '/projects', { name: `B${++counter}` }))).project.id;
    const id = await newFeature({ project: a });
    const draft = await newDraft(id);
    const onlyA = await member('readonly', [{ project: a, role: 'engineer' }]);
    const both = await member('readonly', [
      { project: a, role: 'engineer' },
      { project: b, role: 'engineer' },
    ]);
    const at = `/features/${id}/revisions/${draft.version}/metadata`;

    const refused = await v2('PUT', at, { project: b }, onlyA);
    const unknown = await v2('PUT', at, { project: 'prj_nope' }, both);
    const moved = await v2('PUT', at, { project: b }, both);

    expect([refused.status, unknown.status, moved.status]).toEqual([403, 400, 200]);
    expect(unknown.body.message).toMatch(/\[project\] project prj_nope does not exist/);
    expect(moved.body.revision.metadata.project).toBe(b);
    expect((await liveFeature(id)).project).toBe(a);
  });

  it.each([['neverStale', true], ['customFields', { team: 'x' }]])('refuses %s, which revisions do not keep', async (field, value) => {
    const id = await newFeature();

    const response = await v2('PUT', `/features/${id}/revisions/new/metadata`, { [field]: value });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`\\[${field}\\]`));
    expect(await revisionCount(id)).toBe(1);
  });

  it('sets a holdout in a draft, live with the publish, and refuses an unknown holdout with 404', async () => {
    const id = await newFeature();
    const { holdout } = await ok(v1('POST', '/holdouts', { name: `H${++counter}`, holdoutSize: 0.5, environments: { production: { enabled: true } } }));
    const draft = await newDraft(id);
    const at = `/features/${id}/revisions/${draft.version}/holdout`;

    const unknown = await v2('PUT', at, { holdout: { id: 'hld_nope', value: 'x' } });
    await revisionOf(v2('PUT', at, { holdout: { id: holdout.id, value: 'held' } }), contract.putFeatureRevisionHoldoutV2);

    expect(unknown.status).toBe(404);
    expect((await liveFeature(id)).holdout ?? null).toBeNull();
    const status = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/merge-status`));
    expect(status.result).toEqual({ holdout: { id: holdout.id, value: 'held' } });
    await publish(id, draft.version);
    expect((await liveFeature(id)).holdout).toEqual({ id: holdout.id, value: 'held' });

    const removal = await newDraft(id);
    await revisionOf(v2('PUT', `/features/${id}/revisions/${removal.version}/holdout`, { holdout: null }), contract.putFeatureRevisionHoldoutV2);
    await publish(id, removal.version);
    expect((await liveFeature(id)).holdout ?? null).toBeNull();
  });
});

describe('diff', () => {
  it('lists what a draft changed against its base, in the minimal and full shapes of GrowthBook 5', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    await ok(v2('PUT', `/features/${id}/revisions/${draft.version}/default-value`, { defaultValue: 'green' }));
    const added = (await ok(v2('POST', `/features/${id}/revisions/${draft.version}/rules`, { rule: { value: 'x', allEnvironments: true } }))).revision.rules[1];
    await ok(v2('PUT', `/features/${id}/revisions/${draft.version}/rules/fr_vip`, { rule: { value: 'silver' } }));

    const minimal = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/diff`));
    const full = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/diff?format=full&base=1`));

    expectValid(validDiff, minimal);
    expectValid(validDiff, full);
    expectShape(contract.getFeatureRevisionDiffV2, minimal);
    expect(minimal.diff).toMatchObject({ name: id, type: 'feature', from: 1, to: draft.version });
    expect(minimal.diff.changes).toEqual([
      { field: 'defaultValue', change: 'modified', before: 'blue', after: 'green' },
      {
        field: 'rules',
        change: 'modified',
        items: {
          added: [{ index: 1, value: added }],
          removed: [],
          modified: [{ id: 'fr_vip', beforeIndex: 0, afterIndex: 0, before: { value: 'gold' }, after: { value: 'silver' } }],
        },
      },
    ]);
    expect(full.diff.before.defaultValue).toBe('blue');
    expect(full.diff.after.rules).toHaveLength(2);
  });

  it('diffs against the live version or itself, and refuses a base that does not exist', async () => {
    const id = await newFeature();
    const draft = await newDraft(id);
    const other = await newDraft(id);
    await ok(v2('PUT', `/features/${id}/revisions/${other.version}/default-value`, { defaultValue: 'red' }));
    await publish(id, other.version);

    const live = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/diff?base=live`));
    const self = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/diff?base=${draft.version}`));
    const missing = await v2('GET', `/features/${id}/revisions/${draft.version}/diff?base=99`);
    const nonsense = await v2('GET', `/features/${id}/revisions/${draft.version}/diff?base=yesterday`);

    expect(live.diff).toMatchObject({ from: other.version, changes: [{ field: 'defaultValue', change: 'modified', before: 'red', after: 'blue' }] });
    expect(self.diff.changes).toEqual([]);
    expect([missing.status, nonsense.status]).toEqual([400, 400]);
    expect(missing.body.message).toBe('Could not find baseline revision #99');
    expect(nonsense.body.message).toMatch(/\[base\]/);
  });
});

describe('rebase preview', () => {
  it('shows the conflicts and, once resolved, the merge, writing nothing', async () => {
    const id = await newFeature();
    const [a, b] = [await newDraft(id), await newDraft(id)];
    await ok(v2('PUT', `/features/${id}/revisions/${a.version}/default-value`, { defaultValue: 'green' }));
    await ok(v2('PUT', `/features/${id}/revisions/${b.version}/default-value`, { defaultValue: 'red' }));
    await publish(id, a.version);
    const before = await getRevision(id, b.version);
    const at = `/features/${id}/revisions/${b.version}/rebase/preview`;

    const open = await ok(v2('POST', at, {}));
    const resolved = await ok(v2('POST', at, { conflictResolutions: { defaultValue: 'overwrite' }, expectedLiveVersion: a.version }));
    const stale = await v2('POST', at, { expectedLiveVersion: 1 });

    expectValid(validPreview, open);
    expectValid(validPreview, resolved);
    expectShape(contract.postFeatureRevisionRebasePreviewV2, resolved);
    expect(open).toEqual({
      success: false,
      liveVersion: a.version,
      draftDateUpdated: expect.any(String),
      conflicts: [{ name: 'Default Value', key: 'defaultValue', resolved: false, base: '"blue"', live: '"green"', revision: '"red"' }],
    });
    expect(resolved).toMatchObject({ success: true, conflicts: [{ key: 'defaultValue', resolved: true }], result: { defaultValue: 'red' } });
    expect(stale.status).toBe(409);
    expect(await getRevision(id, b.version)).toEqual(before);
  });

  /** Edits a draft may get, and changes published meanwhile; each picks from few values so they collide often. */
  const draftEdit = fc.oneof(
    fc.record({ kind: fc.constant('default' as const), value: fc.constantFrom('red', 'green') }),
    fc.record({ kind: fc.constant('toggle' as const), enabled: fc.boolean() }),
    fc.record({ kind: fc.constant('rule' as const), value: fc.constantFrom('gold', 'silver', 'bronze') }),
    fc.record({ kind: fc.constant('add' as const), value: fc.constantFrom('x', 'y') }),
    fc.record({ kind: fc.constant('description' as const), value: fc.constantFrom('one', 'two') }),
  );

  async function applyToDraft(id: string, version: number, edit: { kind: string; value?: string; enabled?: boolean }) {
    const at = `/features/${id}/revisions/${version}`;
    if (edit.kind === 'default') await ok(v2('PUT', `${at}/default-value`, { defaultValue: edit.value }));
    if (edit.kind === 'toggle') await ok(v2('POST', `${at}/toggle`, { environment: 'dev', enabled: edit.enabled }));
    if (edit.kind === 'rule') await ok(v2('PUT', `${at}/rules/fr_vip`, { rule: { value: edit.value } }));
    if (edit.kind === 'add') await ok(v2('POST', `${at}/rules`, { rule: { value: edit.value, environments: ['production'] } }));
    if (edit.kind === 'description') await ok(v2('PUT', `${at}/metadata`, { description: edit.value }));
  }

  it('agrees with what the rebase then writes, and with the diff and merge status after it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(draftEdit, { minLength: 1, maxLength: 3 }), fc.array(draftEdit, { maxLength: 3 }), fc.constantFrom('none', 'overwrite', 'discard'), async (mine, theirs, strategy) => {
        const id = await newFeature();
        const draft = await newDraft(id);
        for (const edit of mine) await applyToDraft(id, draft.version, edit);
        if (theirs.length) {
          const other = await newDraft(id);
          for (const edit of theirs) await applyToDraft(id, other.version, edit);
          const status = await ok(v2('GET', `/features/${id}/revisions/${other.version}/merge-status`));
          if (status.success && Object.keys(status.result).length) await publish(id, other.version);
        }
        const open = await ok(v2('POST', `/features/${id}/revisions/${draft.version}/rebase/preview`, {}));
        const conflictResolutions = strategy === 'none' ? {} : Object.fromEntries(open.conflicts.map((c: { key: string }) => [c.key, strategy]));
        const before = await getRevision(id, draft.version);

        const preview = await ok(v2('POST', `/features/${id}/revisions/${draft.version}/rebase/preview`, { conflictResolutions }));
        expectValid(validPreview, preview);
        expect(await getRevision(id, draft.version)).toEqual(before);
        const rebase = await v2('POST', `/features/${id}/revisions/${draft.version}/rebase`, { conflictResolutions });

        if (!preview.success) {
          expect(rebase.status).toBe(409);
          expect(rebase.body.details.conflicts).toEqual(preview.conflicts);
          expect(await getRevision(id, draft.version)).toEqual(before);
          return;
        }
        expect(rebase.status).toBe(200);
        const status = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/merge-status`));
        const diff = await ok(v2('GET', `/features/${id}/revisions/${draft.version}/diff?base=live`));
        expect(status).toMatchObject({ success: true, conflicts: [] });
        expect(status.result).toEqual(preview.result);
        expect(diff.diff.changes.map((change: { field: string }) => change.field).sort()).toEqual(Object.keys(preview.result).sort());
      }),
      { numRuns: 25 },
    );
  });
});

describe('ramp schedules of draft rules', () => {
  const ramp = {
    name: 'Slow start',
    steps: [
      { interval: 3600, actions: [{ patch: { coverage: 0.3 } }] },
      { interval: 3600, actions: [{ patch: { coverage: 1 } }] },
    ],
  };
  /** A feature with a rollout rule `fr_roll` serving `on` to everyone in production. */
  const rolloutFeature = () =>
    newFeature({
      environments: { production: { enabled: true, rules: [{ id: 'fr_roll', type: 'rollout', value: 'on', coverage: 1, hashAttribute: 'id' }] } },
    });
  const schedulesOf = async (id: string) => (await ok(v1('GET', `/ramp-schedules?featureId=${id}`))).rampSchedules;
  const servedRule = async (id: string) => (await payload()).features?.[id]?.rules?.[0];

  it('keeps a ramp pending in the draft, and starts it on publish in the same write as the rule', async () => {
    const id = await rolloutFeature();
    const draft = await newDraft(id);

    const revision = await revisionOf(v2('PUT', `/features/${id}/revisions/${draft.version}/rules/fr_roll/ramp-schedule`, ramp), contract.putFeatureRevisionRuleRampScheduleV2);

    expect(revision.rampActions).toEqual([expect.objectContaining({ mode: 'create', ruleId: 'fr_roll', name: 'Slow start' })]);
    expect(revision.rules[0]).toMatchObject({ id: 'fr_roll', pendingRamp: 'create' });
    expect(await schedulesOf(id)).toEqual([]);
    expect(await scheduleControlling(org.orgId, id, 'fr_roll')).toBeUndefined();
    expect((await dueRampSchedules(new Date('2999-01-01'), 10_000)).filter((due) => due.featureId === id)).toEqual([]);
    expect(await servedRule(id)).toEqual({ force: 'on' });

    const published = (await publish(id, draft.version)).revision;

    const [schedule] = await schedulesOf(id);
    expect(schedule).toMatchObject({ status: 'running', currentStepIndex: 0, name: 'Slow start', targets: [expect.objectContaining({ ruleId: 'fr_roll', status: 'active' })] });
    expect(await scheduleControlling(org.orgId, id, 'fr_roll')).toBe(schedule.id);
    expect(await servedRule(id)).toEqual(expect.objectContaining({ force: 'on', coverage: 0.3 }));
    // One write: the published revision itself holds the first step, no later revision was made for it.
    const live = await liveFeature(id);
    expect(live.revision.version).toBe(draft.version);
    expect(live.environments.production.rules[0].coverage).toBe(0.3);
    expect(published.rules[0]).toMatchObject({ coverage: 0.3 });
    expect(published.rules[0].pendingRamp).toBeUndefined();
  });

  it('creates a ramp with a later start date ready, for the advancer to start then', async () => {
    const id = await rolloutFeature();
    const startDate = '2999-06-01T00:00:00.000Z';

    const revision = await revisionOf(v2('PUT', `/features/${id}/revisions/new/rules/fr_roll/ramp-schedule`, { ...ramp, startDate }), contract.putFeatureRevisionRuleRampScheduleV2);
    await publish(id, revision.version);

    const [schedule] = await schedulesOf(id);
    expect(schedule).toMatchObject({ status: 'ready', startDate, currentStepIndex: -1 });
    expect((await dueRampSchedules(new Date('2999-12-01'), 10_000)).filter((due) => due.featureId === id)).toEqual([expect.objectContaining({ id: schedule.id })]);
    expect((await servedRule(id))?.coverage ?? 1).toBe(1);
  });

  it('schedules a new rule by a start and end window, the rule off until it starts', async () => {
    const id = await newFeature();

    const revision = await revisionOf(
      v2('POST', `/features/${id}/revisions/new/rules`, { rule: { value: 'later', allEnvironments: true }, schedule: { startDate: '2999-01-01T00:00:00Z', endDate: '2999-02-01T00:00:00Z' } }),
      contract.postFeatureRevisionRuleAddV2,
    );
    await publish(id, revision.version);

    const added = revision.rules[1];
    expect(added).toMatchObject({ enabled: false, pendingRamp: 'create' });
    const [schedule] = await schedulesOf(id);
    expect(schedule).toMatchObject({ status: 'ready', startDate: '2999-01-01T00:00:00.000Z', cutoffDate: '2999-02-01T00:00:00.000Z' });
    expect(schedule.endActions).toEqual([expect.objectContaining({ patch: expect.objectContaining({ ruleId: added.id, enabled: false }) })]);
  });

  it('refuses the publish with 409, changing nothing, when a live schedule took the rule since the ramp was attached', async () => {
    const id = await rolloutFeature();
    const draft = await newDraft(id);
    await ok(v2('PUT', `/features/${id}/revisions/${draft.version}/default-value`, { defaultValue: 'green' }));
    await ok(v2('PUT', `/features/${id}/revisions/${draft.version}/rules/fr_roll/ramp-schedule`, ramp));
    const live = await ok(v1('POST', '/ramp-schedules', { name: 'Taken', featureId: id, ruleId: 'fr_roll' }));

    const refused = await v2('POST', `/features/${id}/revisions/${draft.version}/publish`, {});

    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/fr_roll .*already controlled/);
    expect(await liveFeature(id)).toMatchObject({ defaultValue: 'blue', revision: { version: 1 } });
    expect((await getRevision(id, draft.version)).status).toBe('draft');
    expect((await schedulesOf(id)).map((schedule: { id: string }) => schedule.id)).toEqual([live.rampSchedule.id]);
    expect(await sdkValue(id)).toBe('on');
  });

  it('drops a pending ramp with the draft discarded, and removes it with DELETE', async () => {
    const id = await rolloutFeature();
    const draft = await newDraft(id);
    const at = `/features/${id}/revisions/${draft.version}/rules/fr_roll/ramp-schedule`;
    await ok(v2('PUT', at, ramp));

    const removed = await revisionOf(v2('DELETE', at), contract.deleteFeatureRevisionRuleRampScheduleV2);
    const again = await v2('DELETE', at);
    await ok(v2('PUT', at, ramp));
    await ok(v2('POST', `/features/${id}/revisions/${draft.version}/discard`, {}));

    expect(removed.rampActions).toBeUndefined();
    expect(removed.rules[0].pendingRamp).toBeUndefined();
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('Rule "fr_roll" has no ramp schedule to remove.');
    expect(await schedulesOf(id)).toEqual([]);
    expect(await scheduleControlling(org.orgId, id, 'fr_roll')).toBeUndefined();
  });

  it.each([
    ['start actions', { ...ramp, startActions: [{ patch: { coverage: 0 } }] }, /\[startActions\]/],
    ['a monitored step', { steps: [{ interval: 60, monitored: true }] }, /\[steps\.0\.monitored\]/],
    ['a step without interval or approval', { steps: [{ interval: null }] }, /\[steps\.0\.interval\]/],
    ['a locked ramp', { ...ramp, lockdownConfig: { mode: 'locked' } }, /\[lockdownConfig\.mode\]/],
    ['a patch that changes environments', { steps: [{ interval: 60, actions: [{ patch: { environments: ['dev'] } }] }] }, /\[steps\.0\.actions\.0\.patch\]/],
    ['a condition that is not JSON', { steps: [{ interval: 60, actions: [{ patch: { condition: '{x' } }] }] }, /condition/],
    ['a negative interval', { steps: [{ interval: -5 }] }, /\[steps\.0\.interval\]/],
    ['a start state', { ...ramp, startState: { coverage: 0 } }, /\[startState\]/],
  ])('refuses %s with 400, storing nothing', async (_case, body, message) => {
    const id = await rolloutFeature();
    const draft = await newDraft(id);

    const [edit, fresh] = await Promise.all([
      v2('PUT', `/features/${id}/revisions/${draft.version}/rules/fr_roll/ramp-schedule`, body),
      v2('PUT', `/features/${id}/revisions/new/rules/fr_roll/ramp-schedule`, body),
    ]);

    expect([edit.status, fresh.status]).toEqual([400, 400]);
    expect(edit.body.message).toMatch(message);
    expect((await getRevision(id, draft.version)).rampActions).toBeUndefined();
    expect(await revisionCount(id)).toBe(2);
  });

  it('refuses a ramp that does not fit its rule, a rule it lacks, and a rule a live schedule controls', async () => {
    const id = await newFeature({ valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules: [{ id: 'fr_on', type: 'force', value: 'true' }] } } });
    const draft = await newDraft(id);
    const at = (rule: string) => `/features/${id}/revisions/${draft.version}/rules/${rule}/ramp-schedule`;

    const coverageOnForce = await v2('PUT', at('fr_on'), { steps: [{ interval: 60, actions: [{ patch: { coverage: 0.5 } }] }] });
    const missing = await v2('PUT', at('fr_nope'), ramp);
    const live = await ok(v1('POST', '/ramp-schedules', { name: 'Live', featureId: id, ruleId: 'fr_on' }));
    const controlled = await v2('PUT', at('fr_on'), { steps: [{ interval: 60, actions: [{ patch: { force: true } }] }] });
    const both = await v2('PUT', `/features/${id}/revisions/${draft.version}/rules/fr_on`, { rule: { value: 'true' }, rampSchedule: ramp, schedule: { startDate: '2999-01-01T00:00:00Z' } });

    expect([coverageOnForce.status, missing.status, controlled.status, both.status]).toEqual([400, 404, 400, 400]);
    expect(coverageOnForce.body.message).toMatch(/force rule, which has no coverage/);
    expect(missing.body.message).toBe('Rule "fr_nope" not found');
    expect(controlled.body.message).toBe(`Rule "fr_on" already has a live ramp schedule. Update it via PUT /api/v1/ramp-schedules/${live.rampSchedule.id}.`);
    expect(both.body.message).toMatch(/mutually exclusive/);
    expect((await getRevision(id, draft.version)).rampActions).toBeUndefined();
  });
});
