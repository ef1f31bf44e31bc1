import { can, canInEveryEnvironment, canRead, canSomewhere, higherRole, readsEverywhere, roleAllows, type Permission, type Principal, type Role } from '../../shared/permissions';
import { secretFromHeader } from '../../shared/api/auth';

// The table of BEHAVIOR.md, row by row.
const table: Partial<Record<Role, Permission[]>> = {
  noaccess: [],
  readonly: ['read'],
  engineer: ['read', 'write'],
  experimenter: ['read', 'write', 'review'],
  admin: ['read', 'write', 'review', 'manage'],
};

const principal = (role: Role, projectRoles: Record<string, Role> = {}): Principal => ({
  orgId: 'org_1',
  keyId: 'key_1',
  role,
  projectRoles,
});

describe('roles and permissions', () => {
  it.each(Object.entries(table) as [Role, Permission[]][])('%s grants exactly %j', (role, granted) => {
    const all: Permission[] = ['read', 'write', 'review', 'manage'];

    expect(all.filter((permission) => roleAllows(role, permission))).toEqual(granted);
  });

  it('lets every role reach public endpoints', () => {
    expect(Object.keys(table).every((role) => roleAllows(role as Role, 'public'))).toBe(true);
  });

  it('takes the higher of two roles', () => {
    expect(higherRole('readonly', 'engineer')).toBe('engineer');
    expect(higherRole('admin', 'noaccess')).toBe('admin');
  });

  it("uses a project's own role for resources in that project, even when it is lower", () => {
    const member = principal('admin', { prj_a: 'readonly' });

    expect(can(member, 'write', ['prj_a'])).toBe(false);
    expect(can(member, 'write', ['prj_b'])).toBe(true);
    expect(can(member, 'write')).toBe(true);
  });

  it('needs the permission in every project of a multi-project resource', () => {
    const member = principal('readonly', { prj_a: 'engineer', prj_b: 'readonly' });

    expect(can(member, 'write', ['prj_a'])).toBe(true);
    expect(can(member, 'write', ['prj_a', 'prj_b'])).toBe(false);
  });

  it('knows when a permission is held only through a project', () => {
    expect(canSomewhere(principal('readonly', { prj_a: 'experimenter' }), 'review')).toBe(true);
    expect(canSomewhere(principal('readonly'), 'write')).toBe(false);
  });
});

describe("reading, as GrowthBook's canReadMultiProjectResource", () => {
  // Each row: the caller, then whether it reads a resource in no project, in prj_a, in prj_b, in both.
  it.each([
    ['readonly', {}, [true, true, true, true], true],
    ['readonly', { prj_b: 'noaccess' }, [true, true, false, true], false],
    ['noaccess', { prj_a: 'engineer' }, [true, true, false, true], false],
    ['noaccess', {}, [false, false, false, false], false],
  ] as const)('%s with project roles %j', (role, projectRoles, reads, everywhere) => {
    const caller = principal(role, projectRoles as Record<string, Role>);

    expect([[], ['prj_a'], ['prj_b'], ['prj_a', 'prj_b']].map((projects) => canRead(caller, projects))).toEqual(reads);
    expect(readsEverywhere(caller)).toBe(everywhere);
  });
});

describe('reading the key from the Authorization header', () => {
  const key = `secret_admin_${'a'.repeat(43)}`;

  it('reads Bearer and Basic with an empty password', () => {
    expect(secretFromHeader(`Bearer ${key}`)).toBe(key);
    expect(secretFromHeader(`Basic ${Buffer.from(`${key}:`).toString('base64')}`)).toBe(key);
    expect(secretFromHeader(`basic ${Buffer.from(key).toString('base64')}`)).toBe(key);
  });

  it.each([undefined, '', 'Bearer', 'Bearer not-a-key', `Digest ${key}`, `Basic ${Buffer.from(':x').toString('base64')}`])(
    'refuses %j with 401',
    (header) => {
      expect(() => secretFromHeader(header)).toThrow(expect.objectContaining({ status: 401 }));
    },
  );
});

describe('canInEveryEnvironment', () => {
  const principal = (grants: Principal['grants']): Principal => ({ orgId: 'org', keyId: 'key', role: 'engineer', projectRoles: {}, grants });

  it('is true for a grant without an environment limit, false when every grant of the permission is limited', () => {
    expect(canInEveryEnvironment(principal({ global: [{ role: 'engineer' }], projects: {} }), 'runExperiments')).toBe(true);
    expect(canInEveryEnvironment(principal({ global: [{ role: 'engineer', environments: ['dev'] }], projects: {} }), 'runExperiments')).toBe(false);
    expect(
      canInEveryEnvironment(principal({ global: [{ role: 'engineer', environments: ['dev'] }, { role: 'experimenter' }], projects: {} }), 'runExperiments'),
    ).toBe(true);
  });

  it('ignores environment limits for a permission that is not environment-scoped', () => {
    expect(canInEveryEnvironment(principal({ global: [{ role: 'engineer', environments: ['dev'] }], projects: {} }), 'readData')).toBe(true);
  });
});
