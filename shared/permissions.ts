import { ForbiddenError } from './errors';

/** GrowthBook's built-in roles; `gbDefault_projectAdmin` is its project admin. */
export const roles = [
  'noaccess',
  'readonly',
  'collaborator',
  'visualEditor',
  'analyst',
  'engineer',
  'experimenter',
  'gbDefault_projectAdmin',
  'admin',
] as const;
export type Role = (typeof roles)[number];

// The coarse levels every endpoint declared before endpoints named GrowthBook's permissions. An endpoint that
// still declares one gets BEHAVIOR.md's table: `write` for engineer and up, `review` for experimenter and up,
// `manage` for admin (and the project admin holds `write` and `review`, as it holds all the experimenter's policies).
const writeLevel = [
  'write',
  'addComments',
  'createIdeas',
  'createPresentations',
  'manageTags',
  'manageFeatures',
  'publishFeatures',
  'manageArchetype',
  'manageSavedGroups',
  'manageTargetingAttributes',
  'createAnalyses',
  'runExperiments',
  'runQueries',
  'manageVisualChanges',
  'manageTemplates',
  'manageGeneralDashboards',
  'createMetrics',
  'createMetricGroups',
  'manageFactTables',
  'manageFactMetrics',
  'manageFactFilters',
  'createSegments',
  'createDimensions',
] as const;
const reviewLevel = ['review', 'reviewFeatures'] as const;
const manageLevel = [
  'manage',
  'manageTeam',
  'manageApiKeys',
  'createProjects',
  'manageProjects',
  'deleteProjects',
  'manageEnvironments',
  'manageSDKConnections',
  'manageNamespaces',
  'manageCustomFields',
  'createDatasources',
  'editDatasourceSettings',
  'organizationSettings',
  'bypassApprovalChecks',
] as const;

/** Every permission an endpoint may ask for: GrowthBook's names (`readData`, `manageFeatures`, ...) and the coarse levels. */
export const permissions = ['readData', 'read', ...writeLevel, ...reviewLevel, ...manageLevel] as const;

/** What an endpoint asks of its caller. `public` endpoints take no key at all; `read` is `readData`. */
export type Permission = 'public' | (typeof permissions)[number];
type Held = Exclude<Permission, 'public' | 'read'>;

/** GrowthBook's permissions whose grant a member's environment limit narrows (its ENV_SCOPED_PERMISSIONS that we check). */
const environmentScoped: ReadonlySet<Permission> = new Set<Permission>(['publishFeatures', 'runExperiments', 'manageEnvironments', 'manageSDKConnections']);

/** GrowthBook's policies, each with the permissions of ours it grants (GrowthBook's own list is longer). */
const policies = {
  ReadData: ['readData'],
  Comments: ['readData', 'addComments'],
  IdeasFullAccess: ['readData', 'createIdeas'],
  PresentationsFullAccess: ['readData', 'createPresentations'],
  FlagsFullAccess: ['readData', 'manageFeatures', 'publishFeatures', 'reviewFeatures'],
  FlagsBypassApprovals: ['readData', 'bypassApprovalChecks'],
  ArchetypesFullAccess: ['readData', 'manageArchetype'],
  ExperimentsFullAccess: ['readData', 'createAnalyses', 'runQueries'],
  ExperimentsPublish: ['readData', 'runExperiments'],
  HoldoutsFullAccess: ['readData', 'createAnalyses', 'runQueries'],
  VisualEditorFullAccess: ['readData', 'manageVisualChanges'],
  RunQueries: ['readData', 'runQueries'],
  MetricsFullAccess: ['readData', 'createMetrics', 'createMetricGroups', 'runQueries'],
  FactTablesFullAccess: ['readData', 'manageFactTables', 'manageFactMetrics', 'manageFactFilters', 'runQueries'],
  FactMetricsFullAccess: ['readData', 'manageFactMetrics', 'manageFactFilters', 'runQueries'],
  DimensionsFullAccess: ['readData', 'createDimensions', 'runQueries'],
  SegmentsFullAccess: ['readData', 'createSegments', 'runQueries'],
  DataSourceConfiguration: ['readData', 'editDatasourceSettings', 'runQueries'],
  SDKConnectionsFullAccess: ['readData', 'manageSDKConnections'],
  AttributesFullAccess: ['readData', 'manageTargetingAttributes'],
  EnvironmentsFullAccess: ['readData', 'manageEnvironments'],
  NamespacesFullAccess: ['readData', 'manageNamespaces'],
  SavedGroupsFullAccess: ['readData', 'manageSavedGroups'],
  TagsFullAccess: ['readData', 'manageTags'],
  TemplatesFullAccess: ['readData', 'manageTemplates'],
  GeneralDashboardsFullAccess: ['readData', 'manageGeneralDashboards'],
  ProjectAdminAccess: ['readData', 'manageProjects'],
  // Policies of GrowthBook's roles that reach nothing of this API.
  SqlExplorerFullAccess: ['readData'],
  LearningsFullAccess: ['readData'],
  DecisionCriteriaFullAccess: ['readData'],
} satisfies Record<string, Held[]>;
type Policy = keyof typeof policies;

const fromPolicies = (...names: Policy[]): Held[] => names.flatMap((name) => policies[name]);

// GrowthBook's experimenter, which the project admin extends.
const growthBookExperimenter: Policy[] = [
  'ReadData', 'Comments', 'FlagsFullAccess', 'ExperimentsFullAccess', 'LearningsFullAccess', 'VisualEditorFullAccess',
  'ArchetypesFullAccess', 'RunQueries', 'SqlExplorerFullAccess', 'MetricsFullAccess', 'FactTablesFullAccess',
  'FactMetricsFullAccess', 'DimensionsFullAccess', 'SegmentsFullAccess', 'IdeasFullAccess', 'PresentationsFullAccess',
  'ExperimentsPublish', 'SDKConnectionsFullAccess', 'AttributesFullAccess', 'EnvironmentsFullAccess', 'NamespacesFullAccess',
  'SavedGroupsFullAccess', 'TagsFullAccess', 'DataSourceConfiguration', 'TemplatesFullAccess', 'DecisionCriteriaFullAccess',
  'HoldoutsFullAccess', 'GeneralDashboardsFullAccess',
];

// noaccess, readonly, engineer, experimenter and admin keep BEHAVIOR.md's table, which predates these roles (so our
// engineer writes metrics and segments, and only an admin manages environments); the other four are GrowthBook's.
const grantsOf: Record<Role, readonly Held[]> = {
  noaccess: [],
  readonly: ['readData'],
  collaborator: fromPolicies('ReadData', 'Comments', 'IdeasFullAccess', 'PresentationsFullAccess'),
  visualEditor: fromPolicies('ReadData', 'VisualEditorFullAccess'),
  analyst: fromPolicies(
    'ReadData', 'Comments', 'RunQueries', 'SqlExplorerFullAccess', 'MetricsFullAccess', 'ExperimentsFullAccess',
    'LearningsFullAccess', 'VisualEditorFullAccess', 'FactTablesFullAccess', 'FactMetricsFullAccess', 'DimensionsFullAccess',
    'SegmentsFullAccess', 'IdeasFullAccess', 'PresentationsFullAccess', 'TagsFullAccess', 'DataSourceConfiguration',
    'TemplatesFullAccess', 'DecisionCriteriaFullAccess', 'HoldoutsFullAccess', 'GeneralDashboardsFullAccess',
  ),
  engineer: ['readData', ...writeLevel],
  experimenter: ['readData', ...writeLevel, ...reviewLevel],
  gbDefault_projectAdmin: [
    ...fromPolicies(...growthBookExperimenter, 'FlagsBypassApprovals', 'ProjectAdminAccess'),
    'write',
    'review',
  ],
  admin: permissions.filter((p): p is Held => p !== 'read'),
};
const granted: Record<Role, ReadonlySet<Permission>> = Object.fromEntries(
  roles.map((role) => [role, new Set<Permission>(grantsOf[role])]),
) as unknown as Record<Role, ReadonlySet<Permission>>;

/** Roles whose grant a member's environment limit can narrow (GrowthBook: those with environment-scoped permissions, but not the admins). */
export const environmentLimitedRoles: readonly Role[] = roles.filter(
  (role) => role !== 'admin' && role !== 'gbDefault_projectAdmin' && [...environmentScoped].some((p) => granted[role].has(p)),
);

/** Whether `role` grants `permission`. */
export function roleAllows(role: Role, permission: Permission): boolean {
  return permission === 'public' || granted[role].has(permission === 'read' ? 'readData' : permission);
}

/** The role that grants more: the one whose permissions include the other's (`a` when neither does). */
export function higherRole(a: Role, b: Role): Role {
  return [...granted[a]].every((permission) => granted[b].has(permission)) && granted[b].size > granted[a].size ? b : a;
}

/** One role held by the caller, with the environments it is limited to (absent: all). */
export interface Grant {
  role: Role;
  environments?: string[];
}

/** Who is calling, resolved from the API key. */
export interface Principal {
  orgId: string;
  /** The key's record id (`key_...`), never the secret. */
  keyId: string;
  /** The member a personal access token belongs to. */
  memberId?: string;
  /** The global role: the key's, or the member's own. */
  role: Role;
  /** Per-project roles of a member (own and teams'); each replaces the global roles for its project. */
  projectRoles: Record<string, Role>;
  /**
   * Every role behind `role` and `projectRoles` when a member holds several (own and teams'), with their
   * environment limits; their permissions add up, as in GrowthBook. Absent: just `role` and `projectRoles`.
   */
  grants?: { global: Grant[]; projects: Record<string, Grant[]> };
}

const globalGrants = (principal: Principal): Grant[] => principal.grants?.global ?? [{ role: principal.role }];

/** The grants for one project: its project roles when the caller has any there, else the global ones. */
function grantsFor(principal: Principal, project: string): Grant[] {
  // Own keys only: a project id such as `toString` must not find the prototype's.
  const projectGrants = principal.grants && Object.hasOwn(principal.grants.projects, project) ? principal.grants.projects[project] : undefined;
  const projectRole = ownRole(principal, project);
  const own = projectGrants ?? (projectRole ? [{ role: projectRole }] : []);
  return own.length ? own : globalGrants(principal);
}

function grantsAllow(grants: Grant[], permission: Permission, environments: string[]): boolean {
  return grants.some(
    (grant) =>
      roleAllows(grant.role, permission) &&
      (!grant.environments || !environmentScoped.has(permission) || environments.every((env) => grant.environments!.includes(env))),
  );
}

/** The caller's role for one project, or the global role when no project is named. */
export function roleFor(principal: Principal, project?: string): Role {
  return (project && ownRole(principal, project)) || principal.role;
}

/** The caller's project role in `project`, if it has one there. */
const ownRole = (principal: Principal, project: string): Role | undefined =>
  Object.hasOwn(principal.projectRoles, project) ? principal.projectRoles[project] : undefined;

/**
 * Whether the caller holds `permission` on a resource in `projects`: in every one of them, or globally when the
 * resource belongs to no project; for an environment-scoped permission, in each of `environments` too.
 */
export function can(principal: Principal, permission: Permission, projects: string[] = [], environments: string[] = []): boolean {
  if (permission === 'public') return true;
  if (projects.length === 0) return grantsAllow(globalGrants(principal), permission, environments);
  return projects.every((project) => grantsAllow(grantsFor(principal, project), permission, environments));
}

/** Whether the caller holds `permission` anywhere: globally or in at least one project. */
export function canSomewhere(principal: Principal, permission: Permission): boolean {
  const projects = principal.grants ? Object.keys(principal.grants.projects) : Object.keys(principal.projectRoles);
  return can(principal, permission) || projects.some((project) => can(principal, permission, [project]));
}

/** Raises 403 unless the caller holds `permission` on a resource in `projects` (and `environments`; see `can`). */
export function assertCan(principal: Principal, permission: Permission, projects: string[] = [], environments: string[] = []): void {
  if (!can(principal, permission, projects, environments)) {
    const where = [projects.length ? `projects ${projects.join(', ')}` : '', environments.length ? `environments ${environments.join(', ')}` : '']
      .filter(Boolean)
      .join(' and ');
    throw new ForbiddenError(`This key's role does not grant the ${permission} permission${where ? ` for ${where}` : ''}`);
  }
}

/**
 * GrowthBook's read rule (its `canReadMultiProjectResource`): a resource in projects is readable where the caller
 * reads in at least one of them; a resource in none, where it reads globally or in at least one project.
 */
export function canRead(principal: Principal, projects: readonly string[] = []): boolean {
  return projects.length ? projects.some((project) => can(principal, 'readData', [project])) : canSomewhere(principal, 'readData');
}

/** Whether the caller reads in every project (globally, and no project role takes it away): lists need no filtering. */
export function readsEverywhere(principal: Principal): boolean {
  const projects = principal.grants ? Object.keys(principal.grants.projects) : Object.keys(principal.projectRoles);
  return can(principal, 'readData') && projects.every((project) => can(principal, 'readData', [project]));
}

/**
 * Whether the caller holds `permission` on a resource in `projects` in every environment (through a grant with no
 * environment limit): then which environments an action touches need not be worked out, nor read.
 */
export function canInEveryEnvironment(principal: Principal, permission: Permission, projects: string[] = []): boolean {
  const unlimited = (grants: Grant[]) =>
    grants.some((grant) => roleAllows(grant.role, permission) && (!grant.environments || !environmentScoped.has(permission)));
  return projects.length === 0 ? unlimited(globalGrants(principal)) : projects.every((project) => unlimited(grantsFor(principal, project)));
}
