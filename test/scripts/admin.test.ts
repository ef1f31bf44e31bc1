import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runAdmin, UsageError } from '../../scripts/admin';
import { hashSecret, findApiKey } from '../../shared/store/api-keys';
import { startApi, type Api } from '../support/api';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('the admin CLI', () => {
  it('creates an organization that starts with production and dev', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Acme']);
    const key = await runAdmin(['key', 'create', '--org', orgId, '--role', 'readonly']);

    const response = await api.request('GET', '/api/v1/saved-groups', { key });

    expect(orgId).toMatch(/^org_/);
    expect(key).toMatch(/^secret_readonly_[A-Za-z0-9_-]{43}$/);
    expect(response.status).toBe(200);
    const { environments } = await import('../../shared/store/environments');
    expect((await environments.all(orgId)).map((e) => e.id).sort()).toEqual(['dev', 'production']);
  });

  it('stores only the hash of a key and never lists its secret', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Hashes']);
    const secret = await runAdmin(['key', 'create', '--org', orgId, '--role', 'admin', '--description', 'ci']);

    const listing = await runAdmin(['key', 'list', '--org', orgId]);

    expect(await findApiKey(hashSecret(secret))).toMatchObject({ orgId, role: 'admin', description: 'ci' });
    expect(JSON.stringify(await findApiKey(hashSecret(secret)))).not.toContain(secret);
    expect(listing).toMatch(/key_\S+\tadmin\t-\t\S+\tci/);
    expect(listing).not.toContain(secret);
  });

  it('adds a member and makes a personal access token that acts with the member role', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'People']);
    const memberId = await runAdmin(['member', 'add', '--org', orgId, '--email', 'ada@example.com', '--name', 'Ada', '--role', 'readonly']);

    const token = await runAdmin(['token', 'create', '--member', memberId]);
    const read = await api.request('GET', '/api/v1/saved-groups', { key: token });
    const write = await api.request('POST', '/api/v1/saved-groups', { key: token, body: { name: 'x', condition: '{}' } });

    expect(memberId).toMatch(/^u_/);
    expect(token).toMatch(/^secret_user_/);
    expect(read.status).toBe(200);
    expect(write.status).toBe(403);
  });

  it('refuses a second member with the same e-mail', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Twins']);
    await runAdmin(['member', 'add', '--org', orgId, '--email', 'same@example.com', '--name', 'One', '--role', 'admin']);

    await expect(
      runAdmin(['member', 'add', '--org', orgId, '--email', 'SAME@example.com', '--name', 'Two', '--role', 'admin']),
    ).rejects.toThrow(/already exists/);
  });

  it('revokes a key, which then stops working once the cache TTL has passed', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Revoke']);
    const secret = await runAdmin(['key', 'create', '--org', orgId, '--role', 'admin']);
    const keyId = (await findApiKey(hashSecret(secret)))!.id;
    process.env.AUTH_CACHE_TTL_SECONDS = '0.2';
    expect((await api.request('GET', '/api/v1/saved-groups', { key: secret })).status).toBe(200);

    await runAdmin(['key', 'revoke', '--org', orgId, '--id', keyId]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await api.request('GET', '/api/v1/saved-groups', { key: secret });

    delete process.env.AUTH_CACHE_TTL_SECONDS;
    expect(after.status).toBe(401);
  });

  it.each([
    [['org', 'create']],
    [['member', 'add', '--org', 'org_x', '--email', 'a@b.c', '--name', 'A', '--role', 'admin']],
    [['key', 'create', '--org', 'org_missing', '--role', 'admin']],
    [['key', 'create', '--role', 'admin']],
    [['token', 'create', '--member', 'u_missing']],
    [['frobnicate', 'now']],
  ])('refuses %j with a usage error', async (argv) => {
    await expect(runAdmin(argv)).rejects.toBeInstanceOf(UsageError);
  });

  it('refuses an unknown role', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Roles']);

    await expect(runAdmin(['key', 'create', '--org', orgId, '--role', 'owner'])).rejects.toThrow(/--role must be one of/);
  });

  it('runs as npm run admin, printing the result and exiting 2 on a usage error', async () => {
    const env = { ...process.env, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT };

    const ok = await run('npx', ['tsx', 'scripts/admin.ts', 'org', 'create', '--name', 'From the shell'], { cwd: root, env });
    const bad = await run('npx', ['tsx', 'scripts/admin.ts', 'key', 'create'], { cwd: root, env }).catch((error) => error);

    expect(ok.stdout.trim()).toMatch(/^org_[A-Za-z0-9_-]+$/);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Usage: npm run admin');
  }, 60_000);
});

describe('check-patterns', () => {
  it('lists the stored conditions whose patterns may backtrack catastrophically, and only those', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Patterns']);
    const key = await runAdmin(['key', 'create', '--org', orgId, '--role', 'admin']);
    const safe = await api.request('POST', '/api/v1/saved-groups', { key, body: { name: 'Safe', type: 'condition', condition: '{"email":{"$regex":"@example\\\\.com$"}}' } });
    // As a group stored before writes refused such patterns: straight into the store, past the API's check.
    const { savedGroups } = await import('../../shared/store/saved-groups');
    await savedGroups.create(orgId, { id: 'grp_old', type: 'condition', name: 'Old', condition: '{"$or":[{"email":{"$regex":"^(a+)+$"}}]}' });

    const printed = await runAdmin(['check-patterns', '--org', orgId]);

    expect(safe.status).toBe(200);
    expect(printed.split('\n')).toEqual([
      `${orgId}\tSAVED_GROUP#grp_old\tcondition\t^(a+)+$`,
      '1 stored conditions with a pattern that may backtrack catastrophically',
    ]);
  });
});

describe('launch-checklist', () => {
  it('sets the manual tasks of the organization and of a project, each with its url, and shows them', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Checklists']);
    const key = await runAdmin(['key', 'create', '--org', orgId, '--role', 'admin']);
    const project = (await api.request('POST', '/api/v1/projects', { key, body: { name: 'Checkout' } })).body.project;

    const before = await runAdmin(['launch-checklist', 'show', '--org', orgId]);
    const setOrg = await runAdmin(['launch-checklist', 'set', '--org', orgId, '--manual', 'QA complete', '--url', 'https://example.com/qa', '--manual', 'Legal']);
    const setProject = await runAdmin(['launch-checklist', 'set', '--org', orgId, '--project', project.id, '--manual', 'Checkout QA']);
    const shownOrg = await runAdmin(['launch-checklist', 'show', '--org', orgId]);
    const shownProject = await runAdmin(['launch-checklist', 'show', '--org', orgId, '--project', project.id]);

    expect(before).toBe(`no launch checklist stored for organization ${orgId}`);
    expect(setOrg).toBe(`2 manual tasks set for organization ${orgId}`);
    expect(setProject).toBe(`1 manual tasks set for project ${project.id}`);
    expect(shownOrg.split('\n')).toEqual(['task\turl', 'QA complete\thttps://example.com/qa', 'Legal\t-']);
    expect(shownProject.split('\n')).toEqual(['task\turl', 'Checkout QA\t-']);
  });

  it('replaces the whole list on a second set, and stores an empty one without --manual', async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Replaced checklist']);
    await runAdmin(['launch-checklist', 'set', '--org', orgId, '--manual', 'Old task']);

    await runAdmin(['launch-checklist', 'set', '--org', orgId, '--manual', 'New task']);
    const replaced = await runAdmin(['launch-checklist', 'show', '--org', orgId]);
    await runAdmin(['launch-checklist', 'set', '--org', orgId]);
    const emptied = await runAdmin(['launch-checklist', 'show', '--org', orgId]);

    expect(replaced.split('\n')).toEqual(['task\turl', 'New task\t-']);
    expect(emptied).toBe('task\turl');
  });

  it("deletes a project's checklist and says when there was none", async () => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Deleted checklist']);
    const key = await runAdmin(['key', 'create', '--org', orgId, '--role', 'admin']);
    const project = (await api.request('POST', '/api/v1/projects', { key, body: { name: 'Deleted' } })).body.project;
    await runAdmin(['launch-checklist', 'set', '--org', orgId, '--manual', 'Org task']);
    await runAdmin(['launch-checklist', 'set', '--org', orgId, '--project', project.id, '--manual', 'Project task']);

    const deleted = await runAdmin(['launch-checklist', 'delete', '--org', orgId, '--project', project.id]);
    const again = await runAdmin(['launch-checklist', 'delete', '--org', orgId, '--project', project.id]);

    expect(deleted).toBe(`deleted the launch checklist of project ${project.id}`);
    expect(again).toBe(`no launch checklist stored for project ${project.id}`);
    expect(await runAdmin(['launch-checklist', 'show', '--org', orgId, '--project', project.id])).toBe(`no launch checklist stored for project ${project.id}`);
    expect((await runAdmin(['launch-checklist', 'show', '--org', orgId])).split('\n')).toEqual(['task\turl', 'Org task\t-']);
  });

  it.each([
    ['an unknown organization', ['launch-checklist', 'set', '--org', 'org_missing', '--manual', 'QA'], /organization org_missing does not exist/],
    ['an unknown project', ['launch-checklist', 'set', '--org', '<org>', '--project', 'prj_missing', '--manual', 'QA'], /project prj_missing does not exist/],
    ['a --url before any --manual', ['launch-checklist', 'set', '--org', '<org>', '--url', 'https://example.com', '--manual', 'QA'], /--url must follow/],
    ['two --url for one task', ['launch-checklist', 'set', '--org', '<org>', '--manual', 'QA', '--url', 'https://a.example', '--url', 'https://b.example'], /--url must follow/],
    ['a --url that is not one', ['launch-checklist', 'set', '--org', '<org>', '--manual', 'QA', '--url', 'not a url'], /is not a URL/],
    ['an empty task', ['launch-checklist', 'set', '--org', '<org>', '--manual', ' '], /--manual must not be empty/],
    ['a task given twice', ['launch-checklist', 'set', '--org', '<org>', '--manual', 'QA', '--manual', 'QA'], /given twice/],
    ['no --org', ['launch-checklist', 'show'], /--org is required/],
  ])('refuses %s with a usage error, storing nothing', async (_case, argv, message) => {
    const orgId = await runAdmin(['org', 'create', '--name', 'Refused checklist']);

    await expect(runAdmin(argv.map((arg) => (arg === '<org>' ? orgId : arg)))).rejects.toThrow(UsageError);
    await expect(runAdmin(argv.map((arg) => (arg === '<org>' ? orgId : arg)))).rejects.toThrow(message);
    expect(await runAdmin(['launch-checklist', 'show', '--org', orgId])).toBe(`no launch checklist stored for organization ${orgId}`);
  });
});
