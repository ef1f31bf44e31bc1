import { GrowthBook, type FeatureApiResponse } from '@growthbook/growthbook';
import { newId } from '../../shared/ids';
import type { Role } from '../../shared/permissions';
import type { ProjectRole } from '../../shared/contracts/members';
import * as reviews from '../../shared/contracts/feature-reviews';
import * as groupRevisions from '../../shared/contracts/saved-group-revisions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createTestOrg, expectShape, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';
import { referenceResponseValidator } from '../support/reference';

// Issue 23's approval rules over HTTP, with the personal access tokens of distinct members: a draft armed to
// publish on approval (`autopublishOnApproval`), approvals that must come from a required team
// (`requiredApproverTeams`), for feature flags and saved groups, and creating a flag under an approval rule.

let api: Api;
const unique = () => newId('').slice(1, 9).toLowerCase();
const validSubmitReviewV1 = referenceResponseValidator('POST', '/v1/features/{id}/revisions/{version}/submit-review');

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** An organization with `approvals` set, an SDK connection on production, and members made on demand. */
async function organization(approvals: unknown) {
  const org: TestOrg = await createTestOrg('Approval rules');
  const call = (key: string, method: string, path: string, body?: unknown): Promise<ApiResponse> => api.request(method, path, { key, body });
  const ok = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await call(key, method, path, body);
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const person = async (role: Role, projectRoles: ProjectRole[] = []) => {
    const member = await addMember(org.orgId, { name: role, email: `${role}-${unique()}@example.com`, role, projectRoles });
    const token = (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: role })).secret;
    return { id: member.id, token };
  };
  const team = async (name: string, memberIds: string[]) => {
    const { team } = await ok(org.keys.admin, 'POST', '/api/v1/teams', { name, description: '', role: 'readonly' });
    await ok(org.keys.admin, 'POST', `/api/v1/teams/${team.id}/members`, { members: memberIds });
    return team.id as string;
  };
  const setApprovals = (body: unknown) => ok(org.keys.admin, 'PUT', '/api/v1/settings/approvals', body);
  if (approvals) await setApprovals(approvals);
  const clientKey = (await ok(org.keys.admin, 'POST', '/api/v1/sdk-connections', { name: 'Web', language: 'javascript', environment: 'production' })).sdkConnection.key;
  /** What the real SDK answers for a flag, from the production payload as served now. */
  const served = async (id: string) => {
    const payload = (await api.request('GET', `/api/features/${clientKey}`)).body as FeatureApiResponse;
    return new GrowthBook({ attributes: { id: 'u1' } }).initSync({ payload }).getFeatureValue(id, 'none');
  };
  const feature = async (project?: string) => {
    const id = `ar-${unique()}`;
    await ok(org.keys.admin, 'POST', '/api/v1/features', {
      id,
      valueType: 'string',
      defaultValue: 'blue',
      ...(project ? { project } : {}),
      environments: { production: { enabled: true, rules: [] }, dev: { enabled: true, rules: [] } },
    });
    return id;
  };
  /** A draft of `id` by `key` setting the default value to `value`; answers its revision path. */
  const draft = async (key: string, id: string, value = 'green') => {
    const { revision } = await ok(key, 'POST', `/api/v2/features/${id}/revisions`, {});
    const path = `/api/v2/features/${id}/revisions/${revision.version}`;
    await ok(key, 'PUT', `${path}/default-value`, { defaultValue: value });
    return path;
  };
  const live = async (id: string) => (await ok(org.keys.admin, 'GET', `/api/v2/features/${id}`)).feature.defaultValue;
  return { org, call, ok, person, team, setApprovals, served, feature, draft, live };
}

describe('publish on approval (feature drafts)', () => {
  let o: Awaited<ReturnType<typeof organization>>;
  let author: { id: string; token: string };
  let reviewer: { id: string; token: string };
  let second: { id: string; token: string };
  beforeAll(async () => {
    o = await organization({ requireReviews: [{ requireReviewOn: true, autopublishOnApproval: true }] });
    [author, reviewer, second] = await Promise.all([o.person('engineer'), o.person('experimenter'), o.person('experimenter')]);
  });

  it('arms a draft on request; the approval that leaves it approved publishes it in the same request, and the SDK payload serves it', async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);

    const requested = await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });
    const servedBefore = await o.served(id);
    const approved = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(requested.revision).toMatchObject({ status: 'pending-review', autoPublishOnApproval: true, autoPublishEnabledBy: author.id });
    expect(servedBefore).toBe('blue');
    expectShape(reviews.postFeatureRevisionSubmitReviewV2, approved);
    expect(approved.autoPublished).toBe(true);
    expect(approved.revision.status).toBe('published');
    expect(approved.revision).not.toHaveProperty('autoPublishOnApproval');
    expect(await o.live(id)).toBe('green');
    expect(await o.served(id)).toBe('green');
    // The publish is the one publish path's, in the revision's log like any other.
    const { log } = await o.ok(o.org.keys.admin, 'GET', `${path}/log`);
    expect(log.map((entry: { action: string }) => entry.action)).toEqual(expect.arrayContaining(['Approved', 'publish']));
  });

  it("does not publish while another reviewer's request for changes stands, and publishes once that reviewer approves", async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });

    await o.ok(second.token, 'POST', `${path}/submit-review`, { action: 'request-changes' });
    const blocked = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const servedWhileBlocked = await o.served(id);
    const cleared = await o.ok(second.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(blocked.revision).toMatchObject({ status: 'changes-requested', autoPublishOnApproval: true });
    expect(blocked).not.toHaveProperty('autoPublished');
    expect(servedWhileBlocked).toBe('blue');
    expect(cleared).toMatchObject({ autoPublished: true, revision: { status: 'published' } });
    expect(await o.served(id)).toBe('green');
  });

  it('approves without publishing with skipAutoPublish: the draft stays approved and armed', async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });

    const approved = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve', skipAutoPublish: true });

    expect(approved).not.toHaveProperty('autoPublished');
    expect(approved.revision).toMatchObject({ status: 'approved', autoPublishOnApproval: true });
    expect(await o.served(id)).toBe('blue');
  });

  it('answers autoPublished in v1 too, with the revision in v1 shape', async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    const version = Number(path.split('/').pop());
    await o.ok(author.token, 'POST', `/api/v1/features/${id}/revisions/${version}/request-review`, { autoPublishOnApproval: true });

    const approved = await o.ok(reviewer.token, 'POST', `/api/v1/features/${id}/revisions/${version}/submit-review`, { action: 'approve' });

    expect(validSubmitReviewV1(approved)).toBe(true);
    expect(approved).toMatchObject({ autoPublished: true, revision: { status: 'published' } });
    expect(await o.served(id)).toBe('green');
  });

  it('keeps the approval and leaves the draft approved and armed when the publish cannot happen (a conflict with the live flag)', async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });
    // The live default changes under the draft (the admin key may bypass approval): the draft's change now conflicts.
    await o.ok(o.org.keys.admin, 'POST', `/api/v1/features/${id}`, { defaultValue: 'red' });

    const approved = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(approved.autoPublished).toBe(false);
    expect(approved.revision).toMatchObject({ status: 'approved', autoPublishOnApproval: true, reviews: [expect.objectContaining({ userId: reviewer.id, status: 'approved' })] });
    expect((await o.ok(o.org.keys.admin, 'GET', path)).revision.status).toBe('approved');
    expect(await o.live(id)).toBe('red');
    expect(await o.served(id)).toBe('red');
  });

  it('arms nothing for a caller who may not publish where the draft changes the flag', async () => {
    const project = (await o.ok(o.org.keys.admin, 'POST', '/api/v1/projects', { name: `P ${unique()}` })).project.id;
    // Manages the project's flags, publishes them in dev only; the draft's default value reaches production too.
    const devOnly = await o.person('readonly', [{ project, role: 'engineer', limitAccessByEnvironment: true, environments: ['dev'] }]);
    const id = await o.feature(project);
    const path = await o.draft(devOnly.token, id);

    const requested = await o.ok(devOnly.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });
    const approved = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(requested.revision.status).toBe('pending-review');
    expect(requested.revision).not.toHaveProperty('autoPublishOnApproval');
    expect(approved).not.toHaveProperty('autoPublished');
    expect(approved.revision.status).toBe('approved');
    expect(await o.served(id)).toBe('blue');
  });

  it('a new review request without autoPublishOnApproval disarms a recalled draft', async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });
    await o.ok(author.token, 'POST', `${path}/recall-review`, {});

    const again = await o.ok(author.token, 'POST', `${path}/request-review`, {});
    const approved = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(again.revision).not.toHaveProperty('autoPublishOnApproval');
    expect(approved).not.toHaveProperty('autoPublished');
    expect(approved.revision.status).toBe('approved');
    expect(await o.served(id)).toBe('blue');
  });
});

describe('publish on approval where the rule does not allow it', () => {
  it('takes the review request unarmed, as GrowthBook does, and an approval publishes nothing', async () => {
    const o = await organization({ requireReviews: [{ requireReviewOn: true }] });
    const [author, reviewer] = await Promise.all([o.person('engineer'), o.person('experimenter')]);
    const id = await o.feature();
    const path = await o.draft(author.token, id);

    const requested = await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });
    const approved = await o.ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(requested.revision).not.toHaveProperty('autoPublishOnApproval');
    expect(approved).not.toHaveProperty('autoPublished');
    expect(approved.revision.status).toBe('approved');
    expect(await o.served(id)).toBe('blue');
  });
});

describe('required approver teams (feature drafts)', () => {
  let o: Awaited<ReturnType<typeof organization>>;
  let author: { id: string; token: string };
  let outsider: { id: string; token: string };
  let security: { id: string; token: string };
  let admin: { id: string; token: string };
  beforeAll(async () => {
    o = await organization(undefined);
    [author, outsider, security, admin] = await Promise.all([o.person('engineer'), o.person('experimenter'), o.person('experimenter'), o.person('admin')]);
    const teamId = await o.team('Security', [security.id]);
    await o.setApprovals({ requireReviews: [{ requireReviewOn: true, autopublishOnApproval: true, requiredApproverTeams: [teamId] }] });
  });

  const missingTeamGate = (id: string, path: string) => ({
    entityType: 'feature',
    id,
    version: Number(path.split('/').pop()),
    type: 'required-approvers-missing',
    severity: 'blocker',
    messages: ['Requires approval from Security.'],
    override: null,
    requiresPermission: 'bypassApprovalChecks',
    resolution: { action: 'request-review', method: 'POST', path: `${path.replace('/api/v2', '')}/request-review` },
  });

  it("leaves a draft approved by a non-member unpublishable (GrowthBook's required-approvers-missing gate); a member's approval clears it", async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `${path}/request-review`, {});

    const approved = await o.ok(outsider.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const blocked = await o.call(author.token, 'POST', `${path}/publish`, {});
    const liveWhileBlocked = await o.live(id);
    await o.ok(security.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const published = await o.call(author.token, 'POST', `${path}/publish`, {});

    expect(approved.revision.status).toBe('approved');
    expect(blocked.status).toBe(422);
    expect(blocked.body.code).toBe('publish_blocked');
    expect(blocked.body.details.gates).toEqual([missingTeamGate(id, path)]);
    expect(liveWhileBlocked).toBe('blue');
    expect(published.status).toBe(200);
    expect(await o.served(id)).toBe('green');
  });

  it("names both gates for a draft not approved at all, and lets a caller who may bypass approvals publish without the team's approval", async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);

    const unreviewed = await o.call(author.token, 'POST', `${path}/publish`, {});
    await o.ok(author.token, 'POST', `${path}/request-review`, {});
    await o.ok(outsider.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const bypassed = await o.call(admin.token, 'POST', `${path}/publish`, {});

    expect(unreviewed.status).toBe(422);
    expect(unreviewed.body.details.gates.map((gate: { type: string }) => gate.type)).toEqual(['approval-required', 'required-approvers-missing']);
    expect(bypassed.status).toBe(200);
    expect(await o.served(id)).toBe('green');
  });

  it("does not publish an armed draft on a non-member's approval (it stays approved); publishes it on a member's", async () => {
    const id = await o.feature();
    const path = await o.draft(author.token, id);
    await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });

    const byOutsider = await o.ok(outsider.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const servedAfterOutsider = await o.served(id);
    const byMember = await o.ok(security.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(byOutsider).toMatchObject({ autoPublished: false, revision: { status: 'approved', autoPublishOnApproval: true } });
    expect(servedAfterOutsider).toBe('blue');
    expect(byMember).toMatchObject({ autoPublished: true, revision: { status: 'published' } });
    expect(await o.served(id)).toBe('green');
  });
});

describe('saved groups: publish on approval and required approver teams', () => {
  let o: Awaited<ReturnType<typeof organization>>;
  let author: { id: string; token: string };
  let outsider: { id: string; token: string };
  let member: { id: string; token: string };
  beforeAll(async () => {
    o = await organization(undefined);
    // Saved groups are reviewed by people who may manage them: engineers.
    [author, outsider, member] = await Promise.all([o.person('engineer'), o.person('engineer'), o.person('engineer')]);
    const teamId = await o.team('Data governance', [member.id]);
    await o.setApprovals({ approvalFlows: { savedGroups: [{ required: true, autopublishOnApproval: true, requiredApproverTeams: [teamId] }] } });
  });

  async function groupDraft() {
    const { savedGroup } = await o.ok(author.token, 'POST', '/api/v1/saved-groups', { name: `Countries ${unique()}`, condition: '{"country":"US"}' });
    const { revision } = await o.ok(author.token, 'PUT', `/api/v1/saved-groups-revisions/${savedGroup.id}/new/condition`, { condition: '{"country":"FR"}' });
    return { groupId: savedGroup.id as string, path: `/api/v1/saved-groups-revisions/${savedGroup.id}/${revision.version}` };
  }
  const condition = async (groupId: string) => (await o.ok(o.org.keys.admin, 'GET', `/api/v1/saved-groups/${groupId}`)).savedGroup.condition;

  it("arms a draft on request; a non-member's approval leaves it approved and unpublished, a team member's publishes it", async () => {
    const { groupId, path } = await groupDraft();

    const requested = await o.ok(author.token, 'POST', `${path}/request-review`, { autoPublishOnApproval: true });
    const byOutsider = await o.ok(outsider.token, 'POST', `${path}/submit-review`, { decision: 'approve' });
    const blocked = await o.call(author.token, 'POST', `${path}/publish`, {});
    const conditionWhileBlocked = await condition(groupId);
    const byMember = await o.ok(member.token, 'POST', `${path}/submit-review`, { decision: 'approve' });

    expect(requested.revision).toMatchObject({ status: 'pending-review', autoPublishOnApproval: true, autoPublishEnabledBy: author.id });
    expectShape(groupRevisions.postSavedGroupRevisionSubmitReview, byOutsider);
    expect(byOutsider).toMatchObject({ autoPublished: false, revision: { status: 'approved', autoPublishOnApproval: true } });
    expect(blocked.status).toBe(422);
    expect(blocked.body.details.gates).toEqual([
      expect.objectContaining({
        entityType: 'saved-group',
        type: 'required-approvers-missing',
        messages: ['Requires approval from Data governance.'],
        requiresPermission: 'bypassApprovalChecks',
        resolution: { action: 'request-review', method: 'POST', path: `${path.replace('/api/v1', '')}/request-review` },
      }),
    ]);
    expect(conditionWhileBlocked).toBe('{"country":"US"}');
    expect(byMember).toMatchObject({ autoPublished: true, revision: { status: 'merged' } });
    expect(byMember.revision).not.toHaveProperty('autoPublishOnApproval');
    expect(await condition(groupId)).toBe('{"country":"FR"}');
  });

  it('publishes nothing for a draft sent to review unarmed', async () => {
    const { groupId, path } = await groupDraft();
    await o.ok(author.token, 'POST', `${path}/request-review`, {});

    const approved = await o.ok(member.token, 'POST', `${path}/submit-review`, { decision: 'approve' });

    expect(approved).not.toHaveProperty('autoPublished');
    expect(approved.revision.status).toBe('approved');
    expect(await condition(groupId)).toBe('{"country":"US"}');
  });
});

describe('creating a flag under an approval rule', () => {
  // GrowthBook gates creation on publish access where the flag starts on, never on approval: a new flag has no
  // earlier state to review a change against (its assertCanCreateFeatureInState).
  let o: Awaited<ReturnType<typeof organization>>;
  beforeAll(async () => {
    o = await organization({ requireReviews: [{ requireReviewOn: true }] });
  });

  it('creates a flag live in a gated environment (v1 and v2) for a caller who may publish there but not bypass approvals', async () => {
    const engineer = await o.person('engineer');
    const v1Id = `ar-${unique()}`;
    const v2Id = `ar-${unique()}`;

    const v1 = await o.call(engineer.token, 'POST', '/api/v1/features', {
      id: v1Id,
      valueType: 'string',
      defaultValue: 'one',
      environments: { production: { enabled: true, rules: [] } },
    });
    const v2 = await o.call(engineer.token, 'POST', '/api/v2/features', { id: v2Id, valueType: 'string', defaultValue: 'two', environments: { production: { enabled: true } } });

    expect([v1.status, v2.status]).toEqual([200, 200]);
    expect(await o.served(v1Id)).toBe('one');
    expect(await o.served(v2Id)).toBe('two');
    // The gate still holds for the flag's first change.
    const change = await o.call(engineer.token, 'POST', `/api/v1/features/${v1Id}`, { defaultValue: 'changed' });
    expect(change.status).toBe(403);
  });

  it('refuses a creation live where the caller may not publish (403, nothing created), and takes it off there', async () => {
    const project = (await o.ok(o.org.keys.admin, 'POST', '/api/v1/projects', { name: `P ${unique()}` })).project.id;
    const devOnly = await o.person('readonly', [{ project, role: 'engineer', limitAccessByEnvironment: true, environments: ['dev'] }]);
    const refusedId = `ar-${unique()}`;
    const offId = `ar-${unique()}`;
    const body = (id: string, production: boolean) => ({
      id,
      valueType: 'string',
      defaultValue: 'x',
      project,
      environments: { production: { enabled: production, rules: [] }, dev: { enabled: true, rules: [] } },
    });

    const refused = await o.call(devOnly.token, 'POST', '/api/v1/features', body(refusedId, true));
    const off = await o.call(devOnly.token, 'POST', '/api/v1/features', body(offId, false));

    expect(refused.status).toBe(403);
    expect((await o.call(o.org.keys.admin, 'GET', `/api/v1/features/${refusedId}`)).status).toBe(404);
    expect(off.status).toBe(200);
    expect(off.body.feature.environments.production.enabled).toBe(false);
  });
});
