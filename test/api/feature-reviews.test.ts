import { newId } from '../../shared/ids';
import type { Role } from '../../shared/permissions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import * as reviews from '../../shared/contracts/feature-reviews';
import * as settingsContract from '../../shared/contracts/settings';
import { readOrganizationSettings } from '../../shared/store/organizations';
import { readRevision } from '../../shared/store/feature-revisions';
import { createTestOrg, expectShape, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

// Reviews of feature drafts and the approval settings, over HTTP: GrowthBook 5's review routes, the
// revision log and its editing rules, stale verdicts, and the gate on publishes and direct writes.

let api: Api;
const reference = (name: string) => {
  const validate = referenceSchemaValidator(name, 'growthbook-5.0.1-openapi.yaml');
  return (value: unknown) => {
    if (!validate(value)) throw new Error(`${name}: ${JSON.stringify(validate.errors, null, 2)}`);
  };
};
const expectRevision = reference('FeatureRevisionV2');
const expectSettings = reference('Settings');
const expectLogEntry = reference('log');
const unique = () => newId('').slice(1, 9).toLowerCase();

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** An organization with its admin key, and members with personal access tokens made on demand. */
async function organization() {
  const org = await createTestOrg('Reviews');
  const call = (key: string, method: string, path: string, body?: unknown): Promise<ApiResponse> => api.request(method, path, { key, body });
  const ok = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await call(key, method, path, body);
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const person = async (role: Role) => {
    const member = await addMember(org.orgId, { name: role, email: `${role}-${unique()}@example.com`, role, projectRoles: [] });
    const token = (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: role })).secret;
    return { id: member.id, token };
  };
  const feature = async (project?: string) => {
    const id = `rv-${unique()}`;
    await ok(org.keys.admin, 'POST', '/api/v1/features', {
      id,
      valueType: 'string',
      defaultValue: 'blue',
      ...(project ? { project } : {}),
      environments: { production: { enabled: true, rules: [] }, dev: { enabled: true, rules: [] } },
    });
    return id;
  };
  const draft = async (key: string, id: string) => (await ok(key, 'POST', `/api/v2/features/${id}/revisions`, { comment: 'try green' })).revision.version as number;
  const revisionPath = (id: string, version: number) => `/api/v2/features/${id}/revisions/${version}`;
  const setApprovals = (body: unknown) => ok(org.keys.admin, 'PUT', '/api/v1/settings/approvals', body);
  return { org, call, ok, person, feature, draft, revisionPath, setApprovals };
}

describe('approval settings', () => {
  it("answers GrowthBook's defaults in the 5.0.1 shape before anything is set", async () => {
    const { org, ok } = await organization();

    const { settings } = await ok(org.keys.readonly, 'GET', '/api/v1/settings');

    expectSettings(settings);
    expectShape(settingsContract.getSettings, { settings });
    expect(settings).toMatchObject({ requireReviews: [], statsEngine: 'bayesian', pValueThreshold: 0.05, confidenceLevel: 0.95 });
    expect(settings.secureAttributeSalt).toBe((await readOrganizationSettings(org.orgId)).secureAttributeSalt);
    expect(settings).not.toHaveProperty('restApiBypassesReviews');
  });

  it('replaces the rules of each family supplied, stores a rule without projects as the all-projects rule, and leaves the other family alone', async () => {
    const { org, ok, setApprovals } = await organization();
    const project = (await ok(org.keys.admin, 'POST', '/api/v1/projects', { name: `P ${unique()}` })).project.id;

    const first = await setApprovals({
      requireReviews: [{ requireReviewOn: true, environments: ['production'], blockSelfApproval: true }],
      approvalFlows: { savedGroups: [{ required: true, projects: [project] }] },
    });
    const second = await setApprovals({ requireReviews: [{ requireReviewOn: false, projects: [project] }] });

    expectShape(settingsContract.putApprovalSettings, first);
    expect(first.requireReviews).toEqual([{ requireReviewOn: true, environments: ['production'], blockSelfApproval: true, projects: [] }]);
    expect(second).toEqual({
      requireReviews: [{ requireReviewOn: false, projects: [project] }],
      approvalFlows: { savedGroups: [{ required: true, projects: [project] }] },
    });
  });

  it('answers stored rules in GET /settings with the fields 5.0.1 declares only', async () => {
    const { org, ok, setApprovals } = await organization();
    await setApprovals({ requireReviews: [{ requireReviewOn: true, resetReviewOnChange: true, blockSelfApproval: true, requiredApproverTeams: [] }] });

    const { settings } = await ok(org.keys.admin, 'GET', '/api/v1/settings');

    expectSettings(settings);
    expect(settings.requireReviews).toEqual([{ requireReviewOn: true, resetReviewOnChange: true, projects: [] }]);
  });

  it.each([
    [{ requireReviews: [{ requireReviewOn: true, projects: ['prj_nope'] }] }, 'prj_nope is not a valid project ID.'],
    [{ requireReviews: [{ requireReviewOn: true, environments: ['staging'] }] }, 'staging is not a valid environment ID.'],
    [{ approvalFlows: { savedGroups: [{ required: true, requiredApproverTeams: ['team_nope'] }] } }, 'team_nope is not a valid team ID.'],
    [{ requireReviews: [{ environments: [] }] }, '[requireReviews.0.requireReviewOn]'],
    [{ requireReviews: [{ requireReviewOn: true, colour: 'red' }] }, 'colour'],
    [{ restApiBypassesReviews: true }, 'restApiBypassesReviews'],
  ])('refuses %j with 400 naming the problem, storing nothing', async (body, message) => {
    const { org, call } = await organization();

    const response = await call(org.keys.admin, 'PUT', '/api/v1/settings/approvals', body);

    expect(response.status).toBe(400);
    expect(response.body.message).toContain(message);
    expect((await readOrganizationSettings(org.orgId)).approvals).toEqual({ requireReviews: [], approvalFlows: { savedGroups: [] } });
  });

  it('needs the organization settings permission to change them', async () => {
    const { org, call } = await organization();
    const body = { requireReviews: [{ requireReviewOn: true }] };

    const statuses = await Promise.all(
      (['engineer', 'experimenter', 'gbDefault_projectAdmin', 'admin'] as const).map(async (role) => [role, (await call(org.keys[role], 'PUT', '/api/v1/settings/approvals', body)).status]),
    );

    expect(Object.fromEntries(statuses)).toEqual({ engineer: 403, experimenter: 403, gbDefault_projectAdmin: 403, admin: 200 });
  });

  it('sets and clears the REST API review bypass with PUT /settings', async () => {
    const { org, ok, call } = await organization();

    const on = await ok(org.keys.admin, 'PUT', '/api/v1/settings', { restApiBypassesReviews: true });
    const off = await ok(org.keys.admin, 'PUT', '/api/v1/settings', { restApiBypassesReviews: null });
    const other = await call(org.keys.admin, 'PUT', '/api/v1/settings', { statsEngine: 'frequentist' });

    expectSettings(on.settings);
    expect(on.settings.restApiBypassesReviews).toBe(true);
    expect(off.settings).not.toHaveProperty('restApiBypassesReviews');
    expect(other.status).toBe(400);
    expect(other.body.message).toContain('statsEngine');
  });
});

describe('the review of a draft', () => {
  it('goes to review, is approved by someone else, and answers in the 5.0.1 shape', async () => {
    const { ok, call, person, feature, draft, revisionPath } = await organization();
    const [author, reviewer] = await Promise.all([person('experimenter'), person('experimenter')]);
    const id = await feature();
    const version = await draft(author.token, id);

    const requested = await ok(author.token, 'POST', `${revisionPath(id, version)}/request-review`, { comment: 'please look' });
    const again = await call(author.token, 'POST', `${revisionPath(id, version)}/request-review`, {});
    const approved = await ok(reviewer.token, 'POST', `${revisionPath(id, version)}/submit-review`, { action: 'approve', comment: 'lgtm' });

    expectRevision(requested.revision);
    expectShape(reviews.postFeatureRevisionRequestReviewV2, requested);
    expect(requested.revision).toMatchObject({ status: 'pending-review', comment: 'please look' });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('Can only request review on a draft (status is "pending-review")');
    expectRevision(approved.revision);
    expectShape(reviews.postFeatureRevisionSubmitReviewV2, approved);
    expect(approved.revision.status).toBe('approved');
    expect(approved.revision.reviews).toEqual([{ userId: reviewer.id, status: 'approved', timestamp: expect.any(String) }]);
  });

  it("refuses the author's own verdict, a reviewer without the review permission, and an organization key's verdict", async () => {
    const { org, call, person, feature, draft, revisionPath } = await organization();
    const [author, engineer] = await Promise.all([person('experimenter'), person('engineer')]);
    const id = await feature();
    const version = await draft(author.token, id);
    await call(author.token, 'POST', `${revisionPath(id, version)}/request-review`, {});
    const approve = (key: string) => call(key, 'POST', `${revisionPath(id, version)}/submit-review`, { action: 'approve' });

    const own = await approve(author.token);
    const noPermission = await approve(engineer.token);
    const secretKey = await approve(org.keys.admin);

    expect([own.status, own.body.message]).toEqual([400, 'Cannot submit a review on a draft you created']);
    expect(noPermission.status).toBe(403);
    expect(secretKey.status).toBe(403);
    expect(secretKey.body.message).toMatch(/personal access token/);
    expect((await readRevision(org.orgId, id, version))!).toMatchObject({ status: 'pending-review', reviews: [] });
  });

  it('lets an organization key comment, which changes nothing of the draft but its log', async () => {
    const { org, ok, feature, draft, revisionPath } = await organization();
    const id = await feature();
    const version = await draft(org.keys.admin, id);
    const before = (await readRevision(org.orgId, id, version))!;

    const commented = await ok(org.keys.admin, 'POST', `${revisionPath(id, version)}/submit-review`, { comment: 'noted' });
    const { log } = await ok(org.keys.readonly, 'GET', `${revisionPath(id, version)}/log`);

    expect(commented.revision.status).toBe('draft');
    expect((await readRevision(org.orgId, id, version))!.dateUpdated).toBe(before.dateUpdated);
    expect(log.at(-1)).toMatchObject({ action: 'Comment', value: JSON.stringify({ comment: 'noted' }), user: { type: 'api_key' } });
  });

  it('lets a request for changes win over an approval, and undo follows the verdicts that remain', async () => {
    const { ok, call, person, feature, draft, revisionPath } = await organization();
    const [author, first, second, bystander] = await Promise.all([person('engineer'), person('experimenter'), person('experimenter'), person('experimenter')]);
    const id = await feature();
    const version = await draft(author.token, id);
    const path = revisionPath(id, version);
    await ok(author.token, 'POST', `${path}/request-review`, {});

    await ok(first.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const sentBack = await ok(second.token, 'POST', `${path}/submit-review`, { action: 'request-changes' });
    const nothingToUndo = await call(bystander.token, 'POST', `${path}/undo-review`);
    const undone = await ok(second.token, 'POST', `${path}/undo-review`);

    expect(sentBack.revision.status).toBe('changes-requested');
    expect([nothingToUndo.status, nothingToUndo.body.message]).toEqual([400, 'You have no active review verdict to undo']);
    expectRevision(undone.revision);
    expect(undone.revision.status).toBe('approved');
    expect(undone.revision.reviews.map((r: { userId: string }) => r.userId)).toEqual([first.id]);
  });

  it('is recalled to a plain draft by anyone who manages drafts, dropping the verdicts', async () => {
    const { ok, person, feature, draft, revisionPath } = await organization();
    const [author, reviewer, colleague] = await Promise.all([person('engineer'), person('experimenter'), person('engineer')]);
    const id = await feature();
    const version = await draft(author.token, id);
    const path = revisionPath(id, version);
    await ok(author.token, 'POST', `${path}/request-review`, {});
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    const recalled = await ok(colleague.token, 'POST', `${path}/recall-review`, {});

    expectRevision(recalled.revision);
    expect(recalled.revision.status).toBe('draft');
    expect(recalled.revision).not.toHaveProperty('reviews');
  });

  it('refuses an approval from a contributor when the rule blocks self-approval', async () => {
    const { ok, call, person, feature, draft, revisionPath, setApprovals } = await organization();
    const [author, helper, reviewer] = await Promise.all([person('engineer'), person('experimenter'), person('experimenter')]);
    await setApprovals({ requireReviews: [{ requireReviewOn: true, blockSelfApproval: true }] });
    const id = await feature();
    const version = await draft(author.token, id);
    const path = revisionPath(id, version);
    await ok(helper.token, 'PUT', `${path}/default-value`, { defaultValue: 'green' });
    await ok(author.token, 'POST', `${path}/request-review`, {});

    const byHelper = await call(helper.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const byReviewer = await call(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect([byHelper.status, byHelper.body.message]).toEqual([400, 'You cannot approve a draft you contributed to.']);
    expect(byReviewer.status).toBe(200);
  });
});

describe('stale verdicts', () => {
  async function approvedDraft(rule: Record<string, unknown>) {
    const context = await organization();
    const { ok, person, feature, draft, revisionPath, setApprovals } = context;
    await setApprovals({ requireReviews: [{ requireReviewOn: true, ...rule }] });
    const [author, reviewer] = await Promise.all([person('engineer'), person('experimenter')]);
    const id = await feature();
    const version = await draft(author.token, id);
    const path = revisionPath(id, version);
    await ok(author.token, 'POST', `${path}/request-review`, {});
    return { ...context, author, reviewer, path };
  }

  it('go stale and send the draft back to review when it changes under a rule that resets on change', async () => {
    const { ok, author, reviewer, path } = await approvedDraft({ resetReviewOnChange: true });
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    const edited = await ok(author.token, 'PUT', `${path}/default-value`, { defaultValue: 'green' });

    expectRevision(edited.revision);
    expect(edited.revision.status).toBe('pending-review');
    expect(edited.revision.reviews).toEqual([{ userId: reviewer.id, status: 'approved-stale', timestamp: expect.any(String) }]);
  });

  it('keep an approval standing through an edit when the rule does not reset on change (GrowthBook)', async () => {
    const { ok, author, reviewer, path } = await approvedDraft({});
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    const edited = await ok(author.token, 'PUT', `${path}/default-value`, { defaultValue: 'green' });

    expect(edited.revision.status).toBe('approved');
    expect(edited.revision.reviews[0].status).toBe('approved');
  });

  it('always send a request for changes back to review, stale, once the draft changes', async () => {
    const { ok, author, reviewer, path } = await approvedDraft({});
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'request-changes' });

    const edited = await ok(author.token, 'PUT', `${path}/default-value`, { defaultValue: 'green' });
    const approvedAgain = await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });

    expect(edited.revision.status).toBe('pending-review');
    expect(edited.revision.reviews[0].status).toBe('changes-requested-stale');
    // A new verdict of the same reviewer replaces the stale one.
    expect(approvedAgain.revision.reviews).toEqual([{ userId: reviewer.id, status: 'approved', timestamp: expect.any(String) }]);
  });
});

describe('publishing a draft that needs review', () => {
  it('is refused with 422 and the approval gate until the draft is approved; SDKs see nothing of it', async () => {
    const { org, ok, call, person, feature, draft, revisionPath, setApprovals } = await organization();
    await setApprovals({ requireReviews: [{ requireReviewOn: true }] });
    const [author, reviewer] = await Promise.all([person('engineer'), person('experimenter')]);
    const id = await feature();
    const version = await draft(author.token, id);
    const path = revisionPath(id, version);
    await ok(author.token, 'PUT', `${path}/default-value`, { defaultValue: 'green' });

    const refused = await call(author.token, 'POST', `${path}/publish`, {});
    const liveAfterRefusal = (await ok(org.keys.admin, 'GET', `/api/v1/features/${id}`)).feature.defaultValue;
    await ok(author.token, 'POST', `${path}/request-review`, {});
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve' });
    const published = await ok(author.token, 'POST', `${path}/publish`, {});

    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'publish_blocked',
      message: 'Publish blocked by 1 gate(s):\n- [approval-required] Requires approval before publishing (status: "draft").',
      details: {
        gates: [
          {
            type: 'approval-required',
            severity: 'blocker',
            override: null,
            requiresPermission: 'bypassApprovalChecks',
            resolution: { action: 'request-review', method: 'POST', path: `/features/${id}/revisions/${version}/request-review` },
          },
        ],
        warnings: [],
      },
    });
    expect(liveAfterRefusal).toBe('blue');
    expectRevision(published.revision);
    expect(published.revision.status).toBe('published');
    expect((await ok(org.keys.admin, 'GET', `/api/v1/features/${id}`)).feature.defaultValue).toBe('green');
  });

  it('is let through for a caller who may bypass approvals, and for every key under the REST API bypass', async () => {
    const { org, ok, call, person, feature, draft, revisionPath, setApprovals } = await organization();
    await setApprovals({ requireReviews: [{ requireReviewOn: true }] });
    const author = await person('engineer');
    const publishAs = async (key: string) => {
      const id = await feature();
      const version = await draft(author.token, id);
      await ok(author.token, 'PUT', `${revisionPath(id, version)}/default-value`, { defaultValue: 'green' });
      return (await call(key, 'POST', `${revisionPath(id, version)}/publish`, {})).status;
    };

    const before = { engineer: await publishAs(author.token), projectAdmin: await publishAs(org.keys.gbDefault_projectAdmin), admin: await publishAs(org.keys.admin) };
    await ok(org.keys.admin, 'PUT', '/api/v1/settings', { restApiBypassesReviews: true });
    const bypassed = await publishAs(author.token);

    expect(before).toEqual({ engineer: 422, projectAdmin: 200, admin: 200 });
    expect(bypassed).toBe(200);
  });
});

describe('direct writes to a flag that needs review', () => {
  it("are refused with GrowthBook's 403 unless the caller may bypass, leaving the flag unchanged", async () => {
    const { org, ok, call, feature, setApprovals } = await organization();
    await setApprovals({ requireReviews: [{ requireReviewOn: true }] });
    const id = await feature();

    const update = await call(org.keys.engineer, 'POST', `/api/v1/features/${id}`, { defaultValue: 'green' });
    const toggle = await call(org.keys.engineer, 'POST', `/api/v1/features/${id}/toggle`, { environments: { dev: false } });
    const unchanged = (await ok(org.keys.admin, 'GET', `/api/v1/features/${id}`)).feature;
    const byAdmin = await call(org.keys.admin, 'POST', `/api/v1/features/${id}`, { defaultValue: 'green' });

    for (const refused of [update, toggle]) {
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(
        "This feature requires approval before changes can be published. Enable 'REST API always bypasses approval requirements' in organization settings.",
      );
    }
    expect(unchanged.defaultValue).toBe('blue');
    expect(unchanged.environments.dev.enabled).toBe(true);
    expect(byAdmin.status).toBe(200);
  });

  it('refuses a revert published at once the same way', async () => {
    const { org, ok, call, feature, draft, revisionPath, setApprovals } = await organization();
    const id = await feature();
    const version = await draft(org.keys.admin, id);
    await ok(org.keys.admin, 'PUT', `${revisionPath(id, version)}/default-value`, { defaultValue: 'green' });
    await ok(org.keys.admin, 'POST', `${revisionPath(id, version)}/publish`, {});
    await setApprovals({ requireReviews: [{ requireReviewOn: true }] });

    const revert = await call(org.keys.engineer, 'POST', `${revisionPath(id, 1)}/revert`, { strategy: 'publish' });

    expect(revert.status).toBe(403);
    expect((await ok(org.keys.admin, 'GET', `/api/v1/features/${id}`)).feature.defaultValue).toBe('green');
  });
});

describe('the revision log', () => {
  async function reviewedDraft() {
    const context = await organization();
    const { ok, person, feature, draft, revisionPath } = context;
    const [author, reviewer, other] = await Promise.all([person('experimenter'), person('experimenter'), person('experimenter')]);
    const id = await feature();
    const version = await draft(author.token, id);
    const path = revisionPath(id, version);
    await ok(author.token, 'PUT', `${path}/default-value`, { defaultValue: 'green' });
    await ok(author.token, 'POST', `${path}/request-review`, { comment: 'please' });
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { action: 'approve', comment: 'ok' });
    await ok(reviewer.token, 'POST', `${path}/submit-review`, { comment: 'nice colour' });
    const entries = async () => (await ok(context.org.keys.readonly, 'GET', `${path}/log`)).log as Array<{ id: string; action: string; value: string }>;
    const entry = async (action: string) => (await entries()).find((e) => e.action === action)!;
    return { ...context, id, version, path, author, reviewer, other, entries, entry };
  }

  it('records every action in order, each entry in the 5.0.1 shape', async () => {
    const { org, ok, id, version, path, author, entries } = await reviewedDraft();
    await ok(author.token, 'POST', `${path}/publish`, {});

    const log = await entries();

    log.forEach(expectLogEntry);
    expectShape(reviews.getFeatureRevisionLogV2, { log });
    expect(log.map((e) => e.action)).toEqual(['new revision', 'edit defaultValue', 'Review Requested', 'Approved', 'Comment', 'publish']);
    expect(log[0]).toMatchObject({ subject: `based on revision #1`, user: { type: 'dashboard', id: author.id } });
    expect(JSON.parse(log[1]!.value)).toEqual({ defaultValue: 'green' });
    expect((await readRevision(org.orgId, id, version))!.log).toHaveLength(6);
  });

  it('lets the author of a comment or verdict rewrite its text, and nobody else', async () => {
    const { call, path, reviewer, other, author, entry } = await reviewedDraft();
    const approved = await entry('Approved');
    const requested = await entry('Review Requested');

    const byOther = await call(other.token, 'PUT', `${path}/log/${approved.id}`, { comment: 'hijack' });
    const ofRequest = await call(author.token, 'PUT', `${path}/log/${requested.id}`, { comment: 'x' });
    const missing = await call(reviewer.token, 'PUT', `${path}/log/frl_missing`, { comment: 'x' });
    const byAuthor = await call(reviewer.token, 'PUT', `${path}/log/${approved.id}`, { comment: 'ok, really' });

    expect(byOther.status).toBe(403);
    expect(ofRequest.status).toBe(403);
    expect(missing.status).toBe(404);
    expect(byAuthor.body).toEqual({ status: 200 });
    expect(await entry('Approved')).toEqual({ ...approved, value: JSON.stringify({ comment: 'ok, really' }) });
  });

  it('lets the author delete a plain comment only; a verdict stays', async () => {
    const { call, path, reviewer, other, entry, entries } = await reviewedDraft();
    const comment = await entry('Comment');
    const approved = await entry('Approved');

    const verdict = await call(reviewer.token, 'DELETE', `${path}/log/${approved.id}`);
    const byOther = await call(other.token, 'DELETE', `${path}/log/${comment.id}`);
    const deleted = await call(reviewer.token, 'DELETE', `${path}/log/${comment.id}`);
    const again = await call(reviewer.token, 'DELETE', `${path}/log/${comment.id}`);

    expect(verdict.status).toBe(403);
    expect(byOther.status).toBe(403);
    expect(deleted.body).toEqual({ status: 200 });
    expect(again.body).toEqual({ status: 200 });
    expect((await entries()).map((e) => e.action)).toEqual(['new revision', 'edit defaultValue', 'Review Requested', 'Approved']);
  });

  it('records discard, reopen and rebase', async () => {
    const { org, ok, feature, draft, revisionPath } = await organization();
    const id = await feature();
    const version = await draft(org.keys.admin, id);
    const path = revisionPath(id, version);

    await ok(org.keys.admin, 'POST', `${path}/discard`, {});
    await ok(org.keys.admin, 'POST', `${path}/reopen`, {});
    await ok(org.keys.admin, 'POST', `${path}/rebase`, {});
    const { log } = await ok(org.keys.admin, 'GET', `${path}/log`);

    expect(log.map((e: { action: string }) => e.action)).toEqual(['new revision', 'discard', 'reopen', 'rebase']);
    expect(log[1].user).toEqual({ type: 'api_key', id: expect.stringMatching(/^key_/) });
  });
});
