import * as contract from '../contracts/sdk-connections';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { paginated } from '../domain/pagination';
import { inProjectFilter } from '../domain/project-tags';
import { NotFoundError } from '../errors';
import { assertProxyHost } from '../payload/proxy-push';
import type { Principal } from '../permissions';
import {
  assertTargetsExist,
  createSdkConnection,
  deleteSdkConnection as removeSdkConnection,
  findSdkKey,
  newSdkConnection,
  sdkConnections,
  updateSdkConnection,
  withSettings,
} from '../store/sdk-connections';
import { readableOr404, visibleTo } from './read-access';

/** An SDK connection the caller may read (404 as if missing otherwise). */
async function readableConnection(auth: Principal, id: string) {
  const connection = await sdkConnections.get(auth.orgId, id);
  return readableOr404(auth, connection, connection.projects ?? [], 'SDK connection', id);
}

/** `DELETE /sdk-connections/{id}`: delete an SDK connection. */
export async function deleteSdkConnection({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteSdkConnection>): UseCaseOutput<typeof contract.deleteSdkConnection> {
  await removeSdkConnection(auth.orgId, params.id);
  return { deletedId: params.id };
}

/** `GET /sdk-connections/{id}`: get an SDK connection. */
export async function getSdkConnection({
  params,
  auth,
}: UseCaseInput<typeof contract.getSdkConnection>): UseCaseOutput<typeof contract.getSdkConnection> {
  return { sdkConnection: await readableConnection(auth, params.id) };
}

/** `GET /sdk-connections`: list SDK connections. */
export async function listSdkConnections({
  query,
  auth,
}: UseCaseInput<typeof contract.listSdkConnections>): UseCaseOutput<typeof contract.listSdkConnections> {
  const tags = [...inProjectFilter(query.projectId), ...(['true', '1'].includes(query.withProxy ?? '') ? ['proxy:true'] : [])];
  // multiOrg is for GrowthBook's multi-organization admins; a key here belongs to one organization.
  return paginated('connections', await sdkConnections.list(auth.orgId, { limit: query.limit, offset: query.offset, tags, visible: visibleTo(auth) }), query);
}

/** `GET /sdk-connections/lookup/{key}`: find an SDK connection by its client key. */
export async function lookupSdkConnectionByKey({
  params,
  auth,
}: UseCaseInput<typeof contract.lookupSdkConnectionByKey>): UseCaseOutput<typeof contract.lookupSdkConnectionByKey> {
  const found = await findSdkKey(params.key);
  if (!found || found.orgId !== auth.orgId) throw new NotFoundError(`SDK connection with key ${params.key} not found`);
  return { sdkConnection: await readableConnection(auth, found.connectionId) };
}

/** `POST /sdk-connections`: create an SDK connection. */
export async function postSdkConnection({
  body,
  auth,
}: UseCaseInput<typeof contract.postSdkConnection>): UseCaseOutput<typeof contract.postSdkConnection> {
  assertProxyHost(body.proxyHost);
  await assertTargetsExist(auth.orgId, body);
  return { sdkConnection: await createSdkConnection(auth.orgId, newSdkConnection(auth.orgId, body)) };
}

/** `PUT /sdk-connections/{id}`: update an SDK connection (the fields given). */
export async function putSdkConnection({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.putSdkConnection>): UseCaseOutput<typeof contract.putSdkConnection> {
  assertProxyHost(body.proxyHost);
  await assertTargetsExist(auth.orgId, body);
  return { sdkConnection: await updateSdkConnection(auth.orgId, params.id, (current) => withSettings(current, body)) };
}
