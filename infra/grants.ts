/**
 * What each function may do with the table, decided here and nowhere else: the CDK stacks turn it
 * into each role's policy (infra/lambda.ts) and `npm start` and the tests enforce it on every
 * DynamoDB call (infra/local/iam.ts), so a handler that calls an action its role lacks fails
 * locally as it would in AWS. Plain data: the local runtime loads no CDK.
 */
import { routes, unknownRouteHandler } from '../shared/contracts/registry';
import type { EndpointSpec } from '../shared/contracts/spec';
import { eventPublisher, proxyPusher, type StreamConsumer } from './stream-consumers';

/** What a function may do with the table. */
export type TableAccess = StreamConsumer['tableAccess'];

/** Read actions, on the table and each of its indexes. Never Scan. */
export const tableReadActions = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];

/**
 * Write actions, on the table only. TransactWriteItems has no IAM action of its own: each write in
 * a transaction is authorized as the PutItem, UpdateItem, DeleteItem or ConditionCheckItem it is.
 * BatchWriteItem is an action of its own (Service Authorization Reference).
 */
export const tableWriteActions = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/**
 * Partition keys no function may write, whatever its access: API keys. Only the admin CLI (run
 * with an operator's credentials, not a Lambda role) creates and revokes them; a function that
 * could write one could mint itself an admin key.
 */
export const writeDeniedLeadingKeys = ['APIKEY#*'];

/** The actions the deny covers: every action that changes an item (a condition check changes nothing). */
export const writeDeniedActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** The table actions an access level allows. */
export function tableActions(access: TableAccess): string[] {
  if (access === 'none') return [];
  return access === 'read' ? tableReadActions : [...tableReadActions, ...tableWriteActions];
}

/** What an endpoint may do with the table, from its spec: GET and public endpoints only read. */
export function tableAccessFor(spec: Pick<EndpointSpec, 'method' | 'permission'>): TableAccess {
  return spec.method === 'GET' || spec.permission === 'public' ? 'read' : 'read-write';
}

export const rampAdvancerHandler = 'functions/scheduler/advance-ramp-schedules.ts';
export const eventPublisherHandler = eventPublisher.handler;
export const proxyPusherHandler = proxyPusher.handler;
export const planSnapshotHandler = 'functions/analysis/plan-snapshot.ts';
export const analyseSnapshotHandler = 'functions/analysis/analyse-snapshot.ts';
export const failSnapshotHandler = 'functions/analysis/fail-snapshot.ts';

/** The functions no route serves, with their table access. */
const otherFunctions: Record<string, TableAccess> = {
  [unknownRouteHandler]: 'none',
  // Ramps and schedule boundaries move features and payloads; stale page indexes are rebuilt here.
  [rampAdvancerHandler]: 'read-write',
  // The stream consumers' access is part of their definition (infra/stream-consumers.ts).
  [eventPublisherHandler]: eventPublisher.tableAccess,
  [proxyPusherHandler]: proxyPusher.tableAccess,
  [planSnapshotHandler]: 'read',
  [analyseSnapshotHandler]: 'read-write',
  [failSnapshotHandler]: 'read-write',
};

const routeAccess = new Map<string, TableAccess>();
for (const route of routes) {
  const access = tableAccessFor(route.spec);
  // A handler file serves one route; two routes sharing one would need the wider access of both.
  if (routeAccess.has(route.handler) && routeAccess.get(route.handler) !== access) {
    throw new Error(`${route.handler} serves routes with different table access`);
  }
  routeAccess.set(route.handler, access);
}

/** The table access of the function whose handler is `handler` (path from the repository root). */
export function tableAccessOf(handler: string): TableAccess {
  const access = routeAccess.get(handler) ?? otherFunctions[handler];
  if (!access) throw new Error(`No table access is decided for ${handler}: add it to infra/grants.ts`);
  return access;
}

/**
 * The screenshot bucket's object actions of the functions that use it, by operationId: an upload writes (and
 * removes the image again when the experiment cannot list it), a delete removes, the image route reads.
 * No other function may touch the bucket.
 */
export const screenshotBucketActions: Record<string, string[]> = {
  postVariationImageUpload: ['s3:PutObject', 's3:DeleteObject'],
  deleteVariationScreenshot: ['s3:DeleteObject'],
  getVariationScreenshot: ['s3:GetObject'],
};

/**
 * The Glue Data Catalog actions of the functions that list an Athena data source's tables, by operationId: the
 * listing reads the tables of the deployment's databases, the table route one table. No other function may read the catalog.
 */
export const glueCatalogActions: Record<string, string[]> = {
  // No glue:GetDatabases: a deployment names the databases (athenaDatabases, athenaTenants), so the listing reads those.
  getInformationSchema: ['glue:GetTables'],
  getInformationSchemaTable: ['glue:GetTable'],
};
