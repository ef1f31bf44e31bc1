import type { AthenaParams } from '../contracts/data-sources';

/** What one organization's Athena data sources may name, from the deployment's `athenaTenants`. */
export interface AthenaAllowance {
  workGroups: string[];
  databases: string[];
  catalog: string;
}

/**
 * The allowance of `orgId` from `ATHENA_TENANTS` (JSON: orgId → allowance), or `unconfined` when the
 * setting is absent: a single-tenant deployment, where every organization shares the analysis role.
 * An organization the setting does not list may name nothing.
 */
export function athenaAllowance(orgId: string, setting: string | undefined): AthenaAllowance | 'unconfined' {
  if (!setting?.trim()) return 'unconfined';
  const tenants = JSON.parse(setting) as Record<string, AthenaAllowance>;
  return Object.hasOwn(tenants, orgId) ? tenants[orgId] : { workGroups: [], databases: [], catalog: '' };
}

const allowed = (values: string[]) => (values.length ? `one of ${values.join(', ')}` : 'none: the organization has no entry in athenaTenants');

/**
 * The problems of Athena params against an organization's allowance, by params field: each names the
 * value and what is allowed. The results go under the tenant's own prefix of the deployment's output
 * location, so a data source may not choose its own.
 */
export function athenaParamsProblems(params: AthenaParams, allowance: AthenaAllowance): { field: string; problem: string }[] {
  const catalog = params.catalog ?? 'AwsDataCatalog';
  return [
    ...(allowance.workGroups.includes(params.workGroup) ? [] : [{ field: 'workGroup', problem: `${params.workGroup} is not a workgroup this organization may use (${allowed(allowance.workGroups)})` }]),
    ...(allowance.databases.includes(params.database) ? [] : [{ field: 'database', problem: `${params.database} is not a database this organization may read (${allowed(allowance.databases)})` }]),
    ...(catalog === allowance.catalog ? [] : [{ field: 'catalog', problem: `${catalog} is not the catalog this organization may read (${allowed(allowance.catalog ? [allowance.catalog] : [])})` }]),
    ...(params.outputLocation === undefined ? [] : [{ field: 'outputLocation', problem: 'is set by the deployment for each organization (athenaTenants): leave it out' }]),
  ];
}
