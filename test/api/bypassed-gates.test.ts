import { newId } from '../../shared/ids';
import type { Role } from '../../shared/permissions';
import * as features from '../../shared/contracts/features';
import * as featuresV2 from '../../shared/contracts/features-v2';
import * as cleanup from '../../shared/contracts/feature-cleanup';
import * as revisions from '../../shared/contracts/feature-revisions';
import * as revisionsV1 from '../../shared/contracts/feature-revisions-v1';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createTestOrg, expectShape, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';

// Issue 23: GrowthBook 5.0.1's `bypassedGates` on the writes of a live flag (v1 and v2 update, toggle, revert,
// a draft's publish and a revision's revert), over HTTP, each answer checked against the 5.0.1 document's
// answer of that operation. The key is there only when a gate was bypassed.

let api: Api;
const unique = () => newId('').slice(1, 9).toLowerCase();

/** The 5.0.1 answer of each operation, by the path (under `/api`) Switchyard serves it at. */
const reference = Object.fromEntries(
  [
    '/v1/features/{id}',
    '/v1/features/{id}/toggle',
    '/v1/features/{id}/revert',
    '/v1/features/{id}/revisions/{version}/publish',
    '/v1/features/{id}/revisions/{version}/revert',
    '/v2/features/{id}',
    '/v2/features/{id}/toggle',
    '/v2/features/{id}/revert',
    '/v2/features/{id}/revisions/{version}/publish',
    '/v2/features/{id}/revisions/{version}/revert',
  ].map((path) => [path, referenceResponseValidator('POST', path)]),
);

/** Asserts `body` is the 5.0.1 document's answer of the operation at `path`. */
function expectReference(path: keyof typeof reference & string, body: unknown) {
  const validate = reference[path]!;
  if (!validate(body)) throw new Error(`${path}: ${JSON.stringify(validate.errors, null, 2)}`);
}

const gate = (via: string) => [{ type: 'approval-required', outcome: 'bypassed', via }];

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/**
 * An organization where every flag change needs review but metadata, with `settings` (the REST API
 * bypass, reverts bypassing approval) set; flags on in production and dev, each with a second revision.
 */
async function organization(settings: Record<string, unknown> = {}) {
  const org: TestOrg = await createTestOrg('Bypassed gates');
  const call = (key: string, method: string, path: string, body?: unknown): Promise<ApiResponse> => api.request(method, `/api${path}`, { key, body });
  const ok = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await call(key, method, path, body);
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  await ok(org.keys.admin, 'PUT', '/v1/settings/approvals', { requireReviews: [{ requireReviewOn: true, featureRequireMetadataReview: false }] });
  if (Object.keys(settings).length) await ok(org.keys.admin, 'PUT', '/v1/settings', settings);
  /** A flag whose live revision is 2 (revision 1 has default value `blue`, revision 2 `red`, written by the admin, who may bypass). */
  const feature = async () => {
    const id = `bg-${unique()}`;
    await ok(org.keys.admin, 'POST', '/v1/features', {
      id,
      valueType: 'string',
      defaultValue: 'blue',
      environments: { production: { enabled: true, rules: [] }, dev: { enabled: true, rules: [] } },
    });
    await ok(org.keys.admin, 'POST', `/v1/features/${id}`, { defaultValue: 'red' });
    return id;
  };
  const person = async (role: Role) => {
    const member = await addMember(org.orgId, { name: role, email: `${role}-${unique()}@example.com`, role, projectRoles: [] });
    return { id: member.id, token: (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: role })).secret };
  };
  /** A draft of `id` setting the default value to `green`, made by `key`: its version. */
  const draft = async (key: string, id: string) => {
    const { revision } = await ok(key, 'POST', `/v2/features/${id}/revisions`, {});
    await ok(key, 'PUT', `/v2/features/${id}/revisions/${revision.version}/default-value`, { defaultValue: 'green' });
    return revision.version as number;
  };
  const live = async (id: string) => (await ok(org.keys.admin, 'GET', `/v2/features/${id}`)).feature;
  return { org, call, ok, feature, person, draft, live };
}

describe('an admin (who may bypass approval) changing a gated flag', () => {
  let o: Awaited<ReturnType<typeof organization>>;
  beforeAll(async () => {
    o = await organization();
  });

  it('is refused without the bypass permission: the gate these answers report is real', async () => {
    const id = await o.feature();

    const refused = await o.call(o.org.keys.engineer, 'POST', `/v1/features/${id}`, { defaultValue: 'green' });

    expect(refused.status).toBe(403);
    expect((await o.live(id)).defaultValue).toBe('red');
  });

  it('updates (v1 and v2) and is told the approval it bypassed', async () => {
    const id = await o.feature();

    const first = await o.ok(o.org.keys.admin, 'POST', `/v1/features/${id}`, { defaultValue: 'green' });
    const second = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}`, { defaultValue: 'yellow' });

    expectReference('/v1/features/{id}', first);
    expectShape(features.updateFeature, first);
    expect(first.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(first.feature.defaultValue).toBe('green');
    expectReference('/v2/features/{id}', second);
    expectShape(featuresV2.updateFeatureV2, second);
    expect(second.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect((await o.live(id)).defaultValue).toBe('yellow');
  });

  it('toggles (v1 and v2) and is told the approval it bypassed', async () => {
    const id = await o.feature();

    const off = await o.ok(o.org.keys.admin, 'POST', `/v1/features/${id}/toggle`, { environments: { production: false } });
    const on = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}/toggle`, { environments: { production: true } });

    expectReference('/v1/features/{id}/toggle', off);
    expectShape(features.toggleFeature, off);
    expect(off.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(off.feature.environments.production.enabled).toBe(false);
    expectReference('/v2/features/{id}/toggle', on);
    expectShape(featuresV2.toggleFeatureV2, on);
    expect(on.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect((await o.live(id)).environments.production.enabled).toBe(true);
  });

  it('reverts (v1 and v2) and is told the approval it bypassed', async () => {
    const id = await o.feature();

    const back = await o.ok(o.org.keys.admin, 'POST', `/v1/features/${id}/revert`, { revision: 1 });
    const forth = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}/revert`, { revision: 2 });

    expectReference('/v1/features/{id}/revert', back);
    expectShape(cleanup.revertFeature, back);
    expect(back.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(back.feature.defaultValue).toBe('blue');
    expectReference('/v2/features/{id}/revert', forth);
    expectShape(featuresV2.revertFeatureV2, forth);
    expect(forth.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect((await o.live(id)).defaultValue).toBe('red');
  });

  it('publishes an unapproved draft (v1 and v2) and is told the approval it bypassed', async () => {
    const [a, b] = await Promise.all([o.feature(), o.feature()]);
    const [va, vb] = await Promise.all([o.draft(o.org.keys.admin, a), o.draft(o.org.keys.admin, b)]);

    const v1 = await o.ok(o.org.keys.admin, 'POST', `/v1/features/${a}/revisions/${va}/publish`, {});
    const v2 = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${b}/revisions/${vb}/publish`, {});

    expectReference('/v1/features/{id}/revisions/{version}/publish', v1);
    expectShape(revisionsV1.postFeatureRevisionPublish, v1);
    expect(v1.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(v1.revision).toMatchObject({ version: va, status: 'published' });
    expectReference('/v2/features/{id}/revisions/{version}/publish', v2);
    expectShape(revisions.postFeatureRevisionPublishV2, v2);
    expect(v2.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(v2.revision).toMatchObject({ version: vb, status: 'published' });
    expect((await o.live(a)).defaultValue).toBe('green');
    expect((await o.live(b)).defaultValue).toBe('green');
  });

  it('reverts to a revision, published at once (v1 and v2), and is told the approval it bypassed', async () => {
    const id = await o.feature();

    const v1 = await o.ok(o.org.keys.admin, 'POST', `/v1/features/${id}/revisions/1/revert`, { strategy: 'publish' });
    const v2 = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}/revisions/2/revert`, { strategy: 'publish' });

    expectReference('/v1/features/{id}/revisions/{version}/revert', v1);
    expectShape(revisionsV1.postFeatureRevisionRevert, v1);
    expect(v1.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(v1.revision).toMatchObject({ version: 3, status: 'published' });
    expectReference('/v2/features/{id}/revisions/{version}/revert', v2);
    expectShape(revisions.postFeatureRevisionRevertV2, v2);
    expect(v2.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect((await o.live(id)).defaultValue).toBe('red');
  });
});

describe('a required approver team', () => {
  it("reports its gate bypassed when an admin publishes an approved draft the team has not approved", async () => {
    const o = await organization();
    const [author, reviewer, member] = await Promise.all([o.person('experimenter'), o.person('experimenter'), o.person('experimenter')]);
    const { team } = await o.ok(o.org.keys.admin, 'POST', '/v1/teams', { name: `Release ${unique()}`, description: '', role: 'readonly' });
    await o.ok(o.org.keys.admin, 'POST', `/v1/teams/${team.id}/members`, { members: [member.id] });
    await o.ok(o.org.keys.admin, 'PUT', '/v1/settings/approvals', {
      requireReviews: [{ requireReviewOn: true, featureRequireMetadataReview: false, requiredApproverTeams: [team.id] }],
    });
    const id = await o.feature();
    const version = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `/v2/features/${id}/revisions/${version}/request-review`, {});
    await o.ok(reviewer.token, 'POST', `/v2/features/${id}/revisions/${version}/submit-review`, { action: 'approve' });

    const refused = await o.call(author.token, 'POST', `/v2/features/${id}/revisions/${version}/publish`, {});
    const published = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}/revisions/${version}/publish`, {});

    expect(refused.status).toBe(422);
    expect(refused.body.details.gates.map((g: { type: string }) => g.type)).toEqual(['required-approvers-missing']);
    expectReference('/v2/features/{id}/revisions/{version}/publish', published);
    expect(published.bypassedGates).toEqual([{ type: 'required-approvers-missing', outcome: 'bypassed', via: 'bypassApprovalPermission' }]);
  });
});

describe('a release', () => {
  it("lists a feature draft's bypassed approval as it lists a saved group's, in its dry run and its publish", async () => {
    const o = await organization();
    const id = await o.feature();
    const version = await o.draft(o.org.keys.admin, id);
    const body = { revisions: [{ entityType: 'feature', id, version }] };

    const dryRun = await o.ok(o.org.keys.admin, 'POST', '/v1/releases/publish-revisions', { ...body, dryRun: true });
    const published = await o.ok(o.org.keys.admin, 'POST', '/v1/releases/publish-revisions', body);

    const expected = [{ entityType: 'feature', id, version, type: 'approval-required', via: 'bypassApprovalPermission' }];
    expect(dryRun.bypassedGates).toEqual(expected);
    expect(published.bypassedGates).toEqual(expected);
    expect((await o.live(id)).defaultValue).toBe('green');
  });
});

describe('no bypassedGates key when no gate was bypassed', () => {
  let o: Awaited<ReturnType<typeof organization>>;
  beforeAll(async () => {
    o = await organization();
  });

  it('answers a change that needs no review (metadata, exempt here) without the key', async () => {
    const id = await o.feature();

    const v1 = await o.ok(o.org.keys.engineer, 'POST', `/v1/features/${id}`, { description: 'exempt' });
    const v2 = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}`, { description: 'still exempt' });

    expectReference('/v1/features/{id}', v1);
    expect(v1).not.toHaveProperty('bypassedGates');
    expect(v1.feature.description).toBe('exempt');
    expectReference('/v2/features/{id}', v2);
    expect(v2).not.toHaveProperty('bypassedGates');
  });

  it("answers an approved draft's publish, even by an admin, without the key", async () => {
    const [a, b] = await Promise.all([o.feature(), o.feature()]);
    const [author, reviewer] = await Promise.all([o.person('experimenter'), o.person('experimenter')]);
    const [va, vb] = await Promise.all([o.draft(author.token, a), o.draft(author.token, b)]);
    for (const [id, version] of [
      [a, va],
      [b, vb],
    ] as const) {
      await o.ok(author.token, 'POST', `/v2/features/${id}/revisions/${version}/request-review`, {});
      await o.ok(reviewer.token, 'POST', `/v2/features/${id}/revisions/${version}/submit-review`, { action: 'approve' });
    }

    const v1 = await o.ok(author.token, 'POST', `/v1/features/${a}/revisions/${va}/publish`, {});
    const v2 = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${b}/revisions/${vb}/publish`, {});

    expectReference('/v1/features/{id}/revisions/{version}/publish', v1);
    expect(v1).not.toHaveProperty('bypassedGates');
    expect(v1.revision).toMatchObject({ version: va, status: 'published' });
    expectReference('/v2/features/{id}/revisions/{version}/publish', v2);
    expect(v2).not.toHaveProperty('bypassedGates');
    expect((await o.live(b)).defaultValue).toBe('green');
  });
});

describe('where the REST API bypasses reviews', () => {
  it('says so as the way the gate was passed, whoever calls (v1 and v2 update, toggle, revision revert)', async () => {
    const o = await organization({ restApiBypassesReviews: true });
    const id = await o.feature();

    const update = await o.ok(o.org.keys.engineer, 'POST', `/v1/features/${id}`, { defaultValue: 'green' });
    const toggle = await o.ok(o.org.keys.engineer, 'POST', `/v2/features/${id}/toggle`, { environments: { dev: false } });
    const byAdmin = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}`, { defaultValue: 'yellow' });
    const revert = await o.ok(o.org.keys.engineer, 'POST', `/v2/features/${id}/revisions/1/revert`, { strategy: 'publish' });

    expectReference('/v1/features/{id}', update);
    expect(update.bypassedGates).toEqual(gate('restApiBypassesReviews'));
    expectReference('/v2/features/{id}/toggle', toggle);
    expect(toggle.bypassedGates).toEqual(gate('restApiBypassesReviews'));
    // As GrowthBook: the organization's setting is named before the caller's permission.
    expect(byAdmin.bypassedGates).toEqual(gate('restApiBypassesReviews'));
    expectReference('/v2/features/{id}/revisions/{version}/revert', revert);
    expect(revert.bypassedGates).toEqual(gate('restApiBypassesReviews'));
    expect((await o.live(id)).defaultValue).toBe('blue');
  });
});

describe('where reverts bypass approval', () => {
  let o: Awaited<ReturnType<typeof organization>>;
  beforeAll(async () => {
    o = await organization({ revertsBypassApproval: true });
  });

  it('lets a caller without the bypass permission revert, and says the setting let it (v1, v2, revision reverts)', async () => {
    const id = await o.feature();

    const v1 = await o.ok(o.org.keys.engineer, 'POST', `/v1/features/${id}/revert`, { revision: 1 });
    const v2 = await o.ok(o.org.keys.engineer, 'POST', `/v2/features/${id}/revert`, { revision: 2 });
    // Where reverts bypass approval, a revision revert publishes unless a draft is asked for.
    const revision = await o.ok(o.org.keys.engineer, 'POST', `/v1/features/${id}/revisions/1/revert`, {});

    expectReference('/v1/features/{id}/revert', v1);
    expect(v1.bypassedGates).toEqual(gate('revertsBypassApproval'));
    expectReference('/v2/features/{id}/revert', v2);
    expect(v2.bypassedGates).toEqual(gate('revertsBypassApproval'));
    expectReference('/v1/features/{id}/revisions/{version}/revert', revision);
    expect(revision.bypassedGates).toEqual(gate('revertsBypassApproval'));
    expect(revision.revision.status).toBe('published');
    expect((await o.live(id)).defaultValue).toBe('blue');
  });

  it("names the caller's permission before the revert setting, as GrowthBook does, and still gates other writes", async () => {
    const id = await o.feature();

    const byAdmin = await o.ok(o.org.keys.admin, 'POST', `/v2/features/${id}/revert`, { revision: 1 });
    const update = await o.call(o.org.keys.engineer, 'POST', `/v1/features/${id}`, { defaultValue: 'green' });

    expect(byAdmin.bypassedGates).toEqual(gate('bypassApprovalPermission'));
    expect(update.status).toBe(403);
    expect((await o.live(id)).defaultValue).toBe('blue');
  });
});
