import { NotFoundError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import type { StoredVisualChangeset } from '../contracts/visual-changesets';
import { experiments } from './experiments';
import { prepareTouch } from '../payload/write';
import { retryOnConflict } from '../db/optimistic';
import { repository, transact } from '../db/repository';

export const visualChangesets = repository<StoredVisualChangeset>({
  type: 'VISUAL_CHANGESET',
  label: 'Visual changeset',
  listTags: (changeset) => [`experiment:${changeset.experiment}`],
  // SDK payloads serve visual experiments from their changesets.
  touch: (orgId, { id }) => [prepareTouch(orgId, id)],
});

/** Every visual changeset of one experiment, in creation order (a Query on the list index). */
export async function visualChangesetsOf(orgId: string, experimentId: string): Promise<StoredVisualChangeset[]> {
  return visualChangesets.allTagged(orgId, [`experiment:${experimentId}`]);
}

/**
 * Creates a changeset for an experiment and marks the experiment as having one, in one
 * transaction; `build` makes the changeset from the experiment as read. Retried when the
 * experiment changed in between.
 */
export async function createVisualChangeset(
  orgId: string,
  experimentId: string,
  build: (experiment: Experiment) => Omit<StoredVisualChangeset, 'dateCreated' | 'dateUpdated'>,
): Promise<StoredVisualChangeset> {
  return retryOnConflict(async () => {
    const current = await experiments.read(orgId, experimentId);
    if (!current) throw new NotFoundError(`Experiment ${experimentId} not found`);
    const created = visualChangesets.prepareCreate(orgId, build(current.entity));
    const flag = current.entity.hasVisualChangesets
      ? []
      : [experiments.prepareUpdate(orgId, current, { ...current.entity, hasVisualChangesets: true })];
    await transact([created, ...flag, prepareTouch(orgId, created.entity.id)]);
    return created.entity;
  });
}
