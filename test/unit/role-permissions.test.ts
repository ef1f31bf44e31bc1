import { can, canSomewhere, environmentLimitedRoles, roleAllows, type Permission, type Principal, type Role } from '../../shared/permissions';

const grantsAll = (role: Role, permissions: Permission[]) => permissions.every((p) => roleAllows(role, p));
const grantsAny = (role: Role, permissions: Permission[]) => permissions.some((p) => roleAllows(role, p));
const member = (grants: Principal['grants']): Principal => ({ orgId: 'org_1', keyId: 'key_1', role: 'noaccess', projectRoles: {}, grants });

describe("GrowthBook's roles as permission sets", () => {
  it('gives an analyst analysis but not flags or experiment starts', () => {
    expect(grantsAll('analyst', ['createAnalyses', 'runQueries', 'createSegments', 'manageFactTables', 'createDimensions'])).toBe(true);
    expect(grantsAny('analyst', ['manageFeatures', 'publishFeatures', 'runExperiments', 'manageSavedGroups', 'write'])).toBe(false);
  });

  it('gives a visual editor visual changes only, and a collaborator reading only', () => {
    expect(roleAllows('visualEditor', 'manageVisualChanges')).toBe(true);
    expect(roleAllows('visualEditor', 'createAnalyses')).toBe(false);
    expect(roleAllows('collaborator', 'read')).toBe(true);
    expect(roleAllows('collaborator', 'manageVisualChanges')).toBe(false);
  });

  it('gives the project admin its project but not the organization', () => {
    expect(grantsAll('gbDefault_projectAdmin', ['manageProjects', 'manageFeatures', 'reviewFeatures', 'manageEnvironments', 'write', 'review'])).toBe(true);
    expect(grantsAny('gbDefault_projectAdmin', ['createProjects', 'deleteProjects', 'manageTeam', 'manage'])).toBe(false);
  });

  it('lets only roles with environment-scoped permissions, other than the admins, be limited to environments', () => {
    expect(environmentLimitedRoles).toEqual(['engineer', 'experimenter']);
  });
});

describe('grants of a member', () => {
  it('adds up the permissions of several global roles', () => {
    const principal = member({ global: [{ role: 'visualEditor' }, { role: 'collaborator' }], projects: {} });

    expect(can(principal, 'manageVisualChanges')).toBe(true);
    expect(can(principal, 'createAnalyses')).toBe(false);
  });

  it("uses a project's roles instead of the global ones for that project", () => {
    const principal = member({ global: [{ role: 'admin' }], projects: { prj_a: [{ role: 'analyst' }, { role: 'visualEditor' }] } });

    expect(can(principal, 'manageFeatures', ['prj_a'])).toBe(false);
    expect(can(principal, 'createAnalyses', ['prj_a'])).toBe(true);
    expect(can(principal, 'manageFeatures', ['prj_b'])).toBe(true);
    expect(canSomewhere(member({ global: [], projects: { prj_a: [{ role: 'analyst' }] } }), 'createSegments')).toBe(true);
  });

  it('narrows only environment-scoped permissions to the environments of a limited role', () => {
    const principal = member({ global: [{ role: 'engineer', environments: ['production'] }], projects: {} });

    expect(can(principal, 'publishFeatures', [], ['production'])).toBe(true);
    expect(can(principal, 'publishFeatures', [], ['dev'])).toBe(false);
    expect(can(principal, 'manageFeatures', [], ['dev'])).toBe(true);
  });

  it('lets an unlimited role cover the environments a limited one lacks', () => {
    const principal = member({ global: [{ role: 'engineer', environments: ['production'] }, { role: 'experimenter' }], projects: {} });

    expect(can(principal, 'publishFeatures', [], ['dev'])).toBe(true);
  });
});

describe('project ids that are also Object.prototype keys', () => {
  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('treats project %s as one the caller has no role in', (project) => {
    const key: Principal = { orgId: 'org_1', keyId: 'key_1', role: 'admin', projectRoles: {} };

    expect(can(key, 'deleteProjects', [project])).toBe(true);
    expect(can(member({ global: [{ role: 'readonly' }], projects: {} }), 'manageFeatures', [project])).toBe(false);
  });
});
