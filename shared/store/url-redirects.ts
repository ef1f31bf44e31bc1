import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import type { UrlRedirect } from '../contracts/url-redirects';
import { servesRedirect } from '../payload/auto-experiments';
import { retryOnConflict } from '../db/optimistic';
import { tableName } from '../db/client';
import { experiments } from './experiments';
import { keys } from '../db/keys';
import { prepareTouch } from '../payload/write';
import { repository, transact, type TransactionOp, type Versioned } from '../db/repository';

export const urlRedirects = repository<UrlRedirect>({
  type: 'URL_REDIRECT',
  label: 'URL redirect',
  listTags: (redirect) => [`experiment:${redirect.experiment}`],
  // SDK payloads serve redirect experiments from their redirects.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
});

/**
 * The redirects SDKs are served (their experiment served, a stopped one's released variation
 * redirecting), other than `exceptId`: one Query of the organization's redirects, then one BatchGet
 * round of their experiments, whatever their number.
 */
export async function servedRedirects(orgId: string, exceptId?: string): Promise<UrlRedirect[]> {
  const all = (await urlRedirects.all(orgId)).filter((redirect) => redirect.id !== exceptId);
  const found = new Map((await experiments.getMany(orgId, all.map((r) => r.experiment))).map((e) => [e.id, e]));
  return all.filter((redirect) => servesRedirect(redirect, found.get(redirect.experiment)));
}

/** The experiment a redirect names, for a request body: 400 naming the field when it does not exist. */
async function readExperiment(orgId: string, id: string): Promise<Versioned<Experiment>> {
  const found = await experiments.read(orgId, id);
  if (!found) throw new InvalidInputError(`Request body: [experiment] no experiment has the id ${id}`);
  return found;
}

/** The write that marks the experiment as having redirects; it always moves the version, so a delete that clears the mark cannot miss this create. */
const markExperiment = (orgId: string, current: Versioned<Experiment>, hasURLRedirects: boolean): TransactionOp =>
  experiments.prepareUpdate(orgId, current, { ...current.entity, hasURLRedirects });

/**
 * Creates a redirect and marks its experiment (`hasURLRedirects`) in one transaction; `build`
 * checks and makes the redirect from the experiment as read. Retried when the experiment changed in between.
 */
export async function addUrlRedirect(
  orgId: string,
  experimentId: string,
  build: (experiment: Experiment) => Omit<UrlRedirect, 'dateCreated' | 'dateUpdated'>,
): Promise<UrlRedirect> {
  return retryOnConflict(async () => {
    const experiment = await readExperiment(orgId, experimentId);
    const created = urlRedirects.prepareCreate(orgId, build(experiment.entity));
    await transact([created, markExperiment(orgId, experiment, true), prepareTouch(orgId, created.entity.id)]);
    return created.entity;
  });
}

/** Read-modify-write of a redirect; `change` sees its experiment too (for permissions and variations). */
export async function changeUrlRedirect(
  orgId: string,
  id: string,
  change: (current: UrlRedirect, experiment: Experiment) => UrlRedirect | Promise<UrlRedirect>,
): Promise<UrlRedirect> {
  return urlRedirects.update(orgId, id, async (current) => {
    const experiment = await experiments.find(orgId, current.experiment);
    if (!experiment) throw new NotFoundError(`Experiment ${current.experiment} of URL redirect ${id} not found`);
    return change(current, experiment);
  });
}

/** The Delete of a redirect, conditional on the version read. */
const prepareDelete = (orgId: string, current: Versioned<UrlRedirect>): TransactionOp => ({
  op: {
    Delete: {
      TableName: tableName(),
      Key: keys.entity(orgId, 'URL_REDIRECT', current.entity.id),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': current.version },
    },
  },
  onConditionFailed: () => new ConflictError('conflict', `URL redirect ${current.entity.id} was changed by another request; retry`),
});

/**
 * Deletes a redirect, and clears its experiment's `hasURLRedirects` when it was the last one, in
 * one transaction conditional on both versions read; `check` may refuse (permissions).
 */
export async function removeUrlRedirect(orgId: string, id: string, check: (experiment: Experiment | undefined) => void): Promise<UrlRedirect> {
  return retryOnConflict(async () => {
    const current = await urlRedirects.read(orgId, id);
    if (!current) throw new NotFoundError(`URL redirect ${id} not found`);
    const [experiment, all] = await Promise.all([experiments.read(orgId, current.entity.experiment), urlRedirects.all(orgId)]);
    check(experiment?.entity);
    const last = !all.some((redirect) => redirect.experiment === current.entity.experiment && redirect.id !== id);
    await transact([
      prepareDelete(orgId, current),
      ...(experiment && last && experiment.entity.hasURLRedirects ? [markExperiment(orgId, experiment, false)] : []),
      prepareTouch(orgId, id),
    ]);
    return current.entity;
  });
}
