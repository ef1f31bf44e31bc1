import { newId } from '../../shared/ids';
import { roles, type Role } from '../../shared/permissions';
import { createApiKey } from '../../shared/store/api-keys';
import { addMember } from '../../shared/store/members';
import { createTestOrg, inTurns, startApi, type Api, type ApiResponse, type TestOrg } from '../support/api';

// Issue 23's approvals matrix, over HTTP: every role of shared/permissions.ts (a member with a personal access
// token) against approval settings and the environment a change touches, for direct writes, draft publishes
// and reviews. Each table is compared whole, so a failing cell shows as one line of the diff.

let api: Api;
const unique = () => newId('').slice(1, 9).toLowerCase();
const APPROVAL_REFUSAL =
  "This feature requires approval before changes can be published. Enable 'REST API always bypasses approval requirements' in organization settings.";

/** The approval settings of the matrix, each in an organization of its own. */
const settings = {
  'no rules': { rules: [] },
  'every environment': { rules: [{ requireReviewOn: true }] },
  'production only': { rules: [{ requireReviewOn: true, environments: ['production'] }] },
  'production, toggles exempt': { rules: [{ requireReviewOn: true, environments: ['production'], featureRequireEnvironmentReview: false }] },
  'every environment, REST API bypass': { rules: [{ requireReviewOn: true }], restApiBypassesReviews: true },
} as const;
type Setting = keyof typeof settings;

/** The changes of the matrix: a rule or a toggle, in one environment. */
const changes = {
  'rule in production': { environment: 'production', kind: 'rule' },
  'rule in dev': { environment: 'dev', kind: 'rule' },
  'toggle in production': { environment: 'production', kind: 'toggle' },
  'toggle in dev': { environment: 'dev', kind: 'toggle' },
} as const;
type Change = keyof typeof changes;

/** Whether each change needs review under each setting (GrowthBook's `checkIfRevisionNeedsReview`). */
const needsReview: Record<Setting, Record<Change, boolean>> = {
  'no rules': { 'rule in production': false, 'rule in dev': false, 'toggle in production': false, 'toggle in dev': false },
  'every environment': { 'rule in production': true, 'rule in dev': true, 'toggle in production': true, 'toggle in dev': true },
  'production only': { 'rule in production': true, 'rule in dev': false, 'toggle in production': true, 'toggle in dev': false },
  'production, toggles exempt': { 'rule in production': true, 'rule in dev': false, 'toggle in production': false, 'toggle in dev': false },
  'every environment, REST API bypass': { 'rule in production': true, 'rule in dev': true, 'toggle in production': true, 'toggle in dev': true },
};

/** What each role may do to flags (shared/permissions.ts): write and publish them, review drafts, bypass approvals. */
const writes: Role[] = ['engineer', 'experimenter', 'gbDefault_projectAdmin', 'admin'];
const reviews: Role[] = ['experimenter', 'gbDefault_projectAdmin', 'admin'];
const bypasses: Role[] = ['gbDefault_projectAdmin', 'admin'];

interface World {
  org: TestOrg;
  tokens: Record<Role, string>;
  reviewer: string;
  ok: (key: string, method: string, path: string, body?: unknown) => Promise<any>;
  call: (key: string, method: string, path: string, body?: unknown) => Promise<ApiResponse>;
}

async function world(setting: Setting): Promise<World> {
  const org = await createTestOrg(`Matrix ${setting}`);
  const call = (key: string, method: string, path: string, body?: unknown) => api.request(method, path, { key, body });
  const ok = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await call(key, method, path, body);
    if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const token = async (role: Role) => {
    const member = await addMember(org.orgId, { name: role, email: `${role}-${unique()}@example.com`, role, projectRoles: [] });
    return (await createApiKey({ orgId: org.orgId, role: 'user', memberId: member.id, description: role })).secret;
  };
  const tokens = Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await token(role)]))) as Record<Role, string>;
  const { rules, ...rest } = settings[setting] as { rules: readonly unknown[]; restApiBypassesReviews?: boolean };
  await ok(org.keys.admin, 'PUT', '/api/v1/settings/approvals', { requireReviews: rules });
  if (rest.restApiBypassesReviews) await ok(org.keys.admin, 'PUT', '/api/v1/settings', { restApiBypassesReviews: true });
  return { org, tokens, reviewer: await token('experimenter'), ok, call };
}

/** A fresh flag, on in both environments with no rules. */
async function flag({ org, ok }: World, project?: string) {
  const id = `mx-${unique()}`;
  await ok(org.keys.admin, 'POST', '/api/v1/features', {
    id,
    valueType: 'boolean',
    defaultValue: 'false',
    ...(project ? { project } : {}),
    environments: { production: { enabled: true, rules: [] }, dev: { enabled: true, rules: [] } },
  });
  return id;
}

const rule = { type: 'force', value: 'true', condition: '{"beta":true}' };

/** A direct (v1) write of `change`: the environment's rules replaced, or the environment turned off. */
function directWrite(w: World, key: string, id: string, change: Change) {
  const { environment, kind } = changes[change];
  return kind === 'rule'
    ? w.call(key, 'POST', `/api/v1/features/${id}`, { environments: { [environment]: { enabled: true, rules: [rule] } } })
    : w.call(key, 'POST', `/api/v1/features/${id}/toggle`, { environments: { [environment]: false } });
}

/** A draft turning production off, made by the admin key; reviewed and approved by a reviewer when `approved`. */
async function draftOf(w: World, id: string, approved: boolean) {
  const { revision } = await w.ok(w.org.keys.admin, 'POST', `/api/v2/features/${id}/revisions`, {});
  const path = `/api/v2/features/${id}/revisions/${revision.version}`;
  await w.ok(w.org.keys.admin, 'POST', `${path}/toggle`, { environment: 'production', enabled: false });
  if (approved) {
    await w.ok(w.org.keys.admin, 'POST', `${path}/request-review`, {});
    await w.ok(w.reviewer, 'POST', `${path}/submit-review`, { action: 'approve' });
  }
  return path;
}

/** How a refused or accepted call reads in a table: its status, and `approval` when it is the approval refusal. */
const outcome = (response: ApiResponse) =>
  response.status === 403 && response.body.message === APPROVAL_REFUSAL
    ? '403 approval'
    : response.status === 422
      ? `422 ${response.body.details.gates[0].type}`
      : String(response.status);

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe.each(Object.keys(settings) as Setting[])('approval setting "%s"', (setting) => {
  let w: World;
  beforeAll(async () => {
    w = await world(setting);
  }, 60_000);

  it('refuses direct writes that need review unless the role may bypass (role × environment)', async () => {
    const cells = roles.flatMap((role) => (Object.keys(changes) as Change[]).map((change) => ({ role, change })));

    const actual = await inTurns(cells, 6, async ({ role, change }) => [
      `${role} / ${change}`,
      outcome(await directWrite(w, w.tokens[role], await flag(w), change)),
    ]);

    const bypass = (role: Role) => bypasses.includes(role) || setting === 'every environment, REST API bypass';
    const expected = cells.map(({ role, change }) => [
      `${role} / ${change}`,
      !writes.includes(role) ? '403' : needsReview[setting][change] && !bypass(role) ? '403 approval' : '200',
    ]);
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  }, 120_000);

  it('publishes a draft that needs review only once approved, or for a role that may bypass (role × approved)', async () => {
    const cells = roles.flatMap((role) => [false, true].map((approved) => ({ role, approved })));

    const actual = await inTurns(cells, 6, async ({ role, approved }) => {
      const path = await draftOf(w, await flag(w), approved);
      return [`${role} / ${approved ? 'approved' : 'not approved'}`, outcome(await w.call(w.tokens[role], 'POST', `${path}/publish`, {}))];
    });

    const bypass = (role: Role) => bypasses.includes(role) || setting === 'every environment, REST API bypass';
    const needs = needsReview[setting]['toggle in production'];
    const expected = cells.map(({ role, approved }) => [
      `${role} / ${approved ? 'approved' : 'not approved'}`,
      !writes.includes(role) ? '403' : needs && !approved && !bypass(role) ? '422 approval-required' : '200',
    ]);
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  }, 120_000);
});

describe('reviewing', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('every environment');
  }, 60_000);

  it('takes the review permission, from a person (role × caller kind)', async () => {
    const cells = roles.flatMap((role) => (['personal access token', 'organization key'] as const).map((kind) => ({ role, kind })));

    const actual = await inTurns(cells, 6, async ({ role, kind }) => {
      const id = await flag(w);
      const { revision } = await w.ok(w.org.keys.admin, 'POST', `/api/v2/features/${id}/revisions`, {});
      const path = `/api/v2/features/${id}/revisions/${revision.version}`;
      await w.ok(w.org.keys.admin, 'POST', `${path}/request-review`, {});
      const key = kind === 'personal access token' ? w.tokens[role] : w.org.keys[role];
      const response = await w.call(key, 'POST', `${path}/submit-review`, { action: 'approve' });
      return [`${role} / ${kind}`, response.status === 200 ? response.body.revision.status : String(response.status)];
    });

    // An organization key has no person to review as: refused even where its role may review.
    const expected = cells.map(({ role, kind }) => [
      `${role} / ${kind}`,
      reviews.includes(role) && kind === 'personal access token' ? 'approved' : '403',
    ]);
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  }, 120_000);
});

describe('a rule for one project', () => {
  it('gates flags of that project only, and reviewing there takes the review permission in that project', async () => {
    const w = await world('no rules');
    const [a, b] = await Promise.all(
      ['A', 'B'].map(
        async (name) => (await w.ok(w.org.keys.admin, 'POST', '/api/v1/projects', { name: `${name} ${unique()}` })).project.id as string,
      ),
    );
    await w.ok(w.org.keys.admin, 'PUT', '/api/v1/settings/approvals', {
      requireReviews: [{ requireReviewOn: true, projects: [a] }, { requireReviewOn: false }],
    });
    const member = await addMember(w.org.orgId, {
      name: 'Reviewer in A',
      email: `ra-${unique()}@example.com`,
      role: 'readonly',
      projectRoles: [{ project: a, role: 'experimenter', environments: [], limitAccessByEnvironment: false }],
    } as Parameters<typeof addMember>[1]);
    const reviewerInA = (await createApiKey({ orgId: w.org.orgId, role: 'user', memberId: member.id, description: 'A' })).secret;
    const approve = async (project: string) => {
      const id = await flag(w, project);
      const { revision } = await w.ok(w.org.keys.admin, 'POST', `/api/v2/features/${id}/revisions`, {});
      const path = `/api/v2/features/${id}/revisions/${revision.version}`;
      await w.ok(w.org.keys.admin, 'POST', `${path}/request-review`, {});
      return (await w.call(reviewerInA, 'POST', `${path}/submit-review`, { action: 'approve' })).status;
    };

    const table = {
      'write in A': outcome(await directWrite(w, w.tokens.engineer, await flag(w, a), 'rule in dev')),
      'write in B': outcome(await directWrite(w, w.tokens.engineer, await flag(w, b), 'rule in dev')),
      'review in A': await approve(a),
      'review in B': await approve(b),
    };

    expect(table).toEqual({ 'write in A': '403 approval', 'write in B': '200', 'review in A': 200, 'review in B': 403 });
  }, 120_000);
});
