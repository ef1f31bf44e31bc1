import { InvalidInputError } from '../errors';
import { newId } from '../ids';
import { athenaParamsProblems, type AthenaAllowance } from './athena-tenants';
import {
  athenaParams,
  dataSourceTypes,
  duckdbParams,
  type AssignmentQueryInput,
  type AthenaParams,
  type DataSource,
  type DataSourceCreate,
  type DataSourceType,
  type DataSourceUpdate,
} from '../contracts/data-sources';

const bad = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/**
 * The engines this deployment may run, from `ANALYSIS_ENGINES` (comma separated). AWS sets it to
 * `athena`, because Lambda has no DuckDB; unset (local) allows every engine.
 */
export function allowedEngines(setting: string | undefined): DataSourceType[] {
  if (!setting?.trim()) return [...dataSourceTypes];
  return setting.split(',').map((engine) => engine.trim()) as DataSourceType[];
}

function checkedParams(type: DataSourceType, params: Record<string, unknown> | undefined, athena: AthenaAllowance | 'unconfined'): DataSource['params'] {
  const result = type === 'athena' ? athenaParams.safeParse(params ?? {}) : duckdbParams.safeParse(params ?? {});
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const path = ['params', ...issue.path.map(String)].join('.');
      return `Request body: [${path}] ${issue.message}${type === 'duckdb' ? ' (a duckdb data source takes no params)' : ''}`;
    });
    throw new InvalidInputError(lines.join('\n'));
  }
  const problems = type === 'athena' && athena !== 'unconfined' ? athenaParamsProblems(result.data as AthenaParams, athena) : [];
  if (problems.length) throw new InvalidInputError(problems.map(({ field, problem }) => `Request body: [params.${field}] ${problem}`).join('\n'));
  return result.data;
}

function checkedAssignmentQueries(inputs: AssignmentQueryInput[], identifierTypes: string[]): DataSource['assignmentQueries'] {
  const seen = new Set<string>();
  return inputs.map((input, i) => {
    const id = input.id ?? newId('exq_');
    if (seen.has(id)) throw bad(`assignmentQueries.${i}.id`, `${id} appears more than once`);
    seen.add(id);
    if (!identifierTypes.includes(input.identifierType)) {
      throw bad(`assignmentQueries.${i}.identifierType`, `${input.identifierType} is not one of identifierTypes (${identifierTypes.join(', ')})`);
    }
    return {
      id,
      name: input.name,
      description: input.description ?? '',
      identifierType: input.identifierType,
      sql: input.sql,
      includesNameColumns: input.includesNameColumns ?? false,
      dimensionColumns: input.dimensionColumns ?? [],
    };
  });
}

/** What this deployment lets one organization's data sources use: engines, and its Athena allowance. */
export interface DataSourceLimits {
  engines: DataSourceType[];
  athena: AthenaAllowance | 'unconfined';
}

/**
 * A data source as stored, from a create body or an update merged over the stored one: params
 * match the type and stay within the organization's Athena allowance, the engine is allowed here,
 * identifier types are unique, and every assignment and join query names identifier types the data source has.
 */
export function checkedDataSource(
  fields: Omit<DataSourceCreate, 'assignmentQueries'> & { assignmentQueries?: AssignmentQueryInput[] },
  base: Pick<DataSource, 'id' | 'dateCreated' | 'dateUpdated'>,
  { engines, athena }: DataSourceLimits,
): DataSource {
  if (!engines.includes(fields.type)) {
    throw bad('type', `${fields.type} data sources cannot run in this deployment; use one of: ${engines.join(', ')}`);
  }
  const identifierTypes = fields.identifierTypes.map((t) => t.id);
  const duplicate = identifierTypes.find((t, i) => identifierTypes.indexOf(t) !== i);
  if (duplicate) throw bad('identifierTypes', `${duplicate} appears more than once`);
  (fields.identifierJoinQueries ?? []).forEach((join, i) => {
    const unknown = join.identifierTypes.find((t) => !identifierTypes.includes(t));
    if (unknown) throw bad(`identifierJoinQueries.${i}.identifierTypes`, `${unknown} is not one of identifierTypes`);
  });
  return {
    ...base,
    name: fields.name,
    description: fields.description ?? '',
    projectIds: fields.projectIds ?? [],
    eventTracker: fields.eventTracker ?? '',
    identifierTypes: fields.identifierTypes.map((t) => ({ id: t.id, description: t.description ?? '' })),
    assignmentQueries: checkedAssignmentQueries(fields.assignmentQueries ?? [], identifierTypes),
    identifierJoinQueries: fields.identifierJoinQueries ?? [],
    ...({ type: fields.type, params: checkedParams(fields.type, fields.params, athena) } as Pick<DataSource, 'type' | 'params'>),
  } as DataSource;
}

/**
 * The stored data source after a partial update. A new `type` needs its own `params`; fields the
 * body leaves out keep their stored values.
 */
export function updatedDataSource(current: DataSource, change: DataSourceUpdate, limits: DataSourceLimits): DataSource {
  if (change.type && change.type !== current.type && change.params === undefined) {
    throw bad('params', `are required when the type changes to ${change.type}`);
  }
  const { id, dateCreated, dateUpdated, ...stored } = current;
  return checkedDataSource({ ...stored, ...change }, { id, dateCreated, dateUpdated }, limits);
}

/** A data-source reference a request body makes: the data source and, optionally, one of its assignment queries. */
export interface DataSourceReference {
  datasource: { field: string; id: string };
  query?: { field: string; id: string };
}

/** The 400 a reference deserves against the data source it names (undefined when missing), or nothing when it holds. */
export function dataSourceReferenceError(reference: DataSourceReference, found: DataSource | undefined): InvalidInputError | undefined {
  const { datasource, query } = reference;
  if (!found) return bad(datasource.field, `no data source has the id ${datasource.id}`);
  if (query && !found.assignmentQueries.some((q) => q.id === query.id)) {
    const ids = found.assignmentQueries.map((q) => q.id);
    return bad(query.field, `data source ${found.id} has no assignment query ${query.id}${ids.length ? ` (it has ${ids.join(', ')})` : ''}`);
  }
  return undefined;
}

/**
 * The reference an experiment or template makes with its data source id and assignment query id
 * (empty when unset), with the body fields that name them; none when neither is set.
 */
export function dataSourceReference(
  ids: { datasource: string; query: string },
  fields: { datasource: string; query: string },
): DataSourceReference | undefined {
  if (!ids.datasource) {
    if (ids.query) throw bad(fields.query, `needs a data source: set ${fields.datasource} too`);
    return undefined;
  }
  return {
    datasource: { field: fields.datasource, id: ids.datasource },
    ...(ids.query ? { query: { field: fields.query, id: ids.query } } : {}),
  };
}
