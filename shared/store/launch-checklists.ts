import type { Experiment } from '../contracts/experiments';
import type { ManualTask } from '../domain/start-checklist';
import { NotFoundError } from '../errors';
import { db, tableName } from '../db/client';
import { keys } from '../db/keys';
import { retryOnConflict } from '../db/optimistic';
import { getItems, transact, type StoredItem } from '../db/repository';
import { experiments } from './experiments';

/**
 * GrowthBook's custom launch checklist: manual tasks an organization (or one of its projects) requires
 * before an experiment starts, and per experiment the tasks it has marked complete. GrowthBook configures
 * the checklist in its UI; Switchyard with the admin CLI (`launch-checklist set`), so the REST API stays GrowthBook's.
 */

/** A stored launch checklist: the organization's (`projectId` '') or a project's. */
export interface LaunchChecklist {
  projectId: string;
  tasks: ManualTask[];
  dateUpdated: string;
}

/** What the start checklist reads of the launch checklist for one experiment. */
export interface LaunchState {
  /** The manual tasks of its project's checklist when one is stored, else of its organization's (none without either). */
  manualTasks: ManualTask[];
  /** The keys of the tasks the experiment has marked complete. */
  completedTasks: string[];
  /** The version of the experiment's completions item (0 before it has one). */
  completionsVersion: number;
}

const toChecklist = (item: StoredItem | undefined): LaunchChecklist | undefined =>
  item ? { projectId: item.projectId as string, tasks: item.tasks as ManualTask[], dateUpdated: item.dateUpdated as string } : undefined;

/** Stores (replaces) the launch checklist of a project, or of the organization when `projectId` is ''. */
export async function setLaunchChecklist(orgId: string, projectId: string, tasks: ManualTask[]): Promise<LaunchChecklist> {
  const checklist = { projectId, tasks, dateUpdated: new Date().toISOString() };
  // The admin replaces the whole list: the last one set wins, so no condition on what was there.
  await db.update({
    TableName: tableName(),
    Key: keys.launchChecklist(orgId, projectId),
    UpdateExpression: 'SET entityType = :type, projectId = :project, tasks = :tasks, dateUpdated = :date ADD version :one',
    ExpressionAttributeValues: { ':type': 'LAUNCH_CHECKLIST', ':project': projectId, ':tasks': tasks, ':date': checklist.dateUpdated, ':one': 1 },
  });
  return checklist;
}

/** Deletes the launch checklist of a project (its experiments then follow the organization's) or of the organization; false when none was stored. */
export async function deleteLaunchChecklist(orgId: string, projectId: string): Promise<boolean> {
  const { Attributes } = await db.delete({ TableName: tableName(), Key: keys.launchChecklist(orgId, projectId), ReturnValues: 'ALL_OLD' });
  return !!Attributes;
}

/** The stored launch checklist of a project (or of the organization when `projectId` is ''), if any. */
export async function getLaunchChecklist(orgId: string, projectId: string): Promise<LaunchChecklist | undefined> {
  const { Item } = await db.get({ TableName: tableName(), Key: keys.launchChecklist(orgId, projectId), ConsistentRead: true });
  return toChecklist(Item as StoredItem | undefined);
}

/** The launch checklist `experiment` follows and the tasks it has completed, in one BatchGet. */
export async function readLaunchState(orgId: string, experiment: Experiment): Promise<LaunchState> {
  const [completions, organization, project] = await getItems([
    keys.experimentChecklist(orgId, experiment.id),
    keys.launchChecklist(orgId, ''),
    ...(experiment.project ? [keys.launchChecklist(orgId, experiment.project)] : []),
  ]);
  // As GrowthBook: a project's checklist, when stored, replaces the organization's.
  const checklist = toChecklist(project) ?? toChecklist(organization);
  return {
    manualTasks: checklist?.tasks ?? [],
    completedTasks: (completions?.completedTasks as string[] | undefined) ?? [],
    completionsVersion: completions?.version ?? 0,
  };
}

/**
 * Marks tasks complete on an experiment: `complete` gets the experiment and its launch state (it may
 * refuse) and returns the new completed keys, which are written with the experiment's next version in
 * one transaction conditional on the version read. Retried, `complete` applied again, on a lost race.
 */
export async function changeCompletedTasks(
  orgId: string,
  experimentId: string,
  complete: (experiment: Experiment, state: LaunchState) => string[],
): Promise<{ experiment: Experiment; state: LaunchState }> {
  return retryOnConflict(async () => {
    const current = await experiments.read(orgId, experimentId);
    if (!current) throw new NotFoundError(`Experiment ${experimentId} not found`);
    const state = await readLaunchState(orgId, current.entity);
    const completedTasks = complete(current.entity, state);
    // The experiment's version moves with its completions (its dateUpdated too, as in GrowthBook), so two writers never interleave.
    const update = experiments.prepareUpdate(orgId, current, current.entity);
    const version = state.completionsVersion + 1;
    await transact([
      update,
      {
        op: {
          Put: {
            TableName: tableName(),
            Item: { ...keys.experimentChecklist(orgId, experimentId), entityType: 'EXPERIMENT_CHECKLIST', version, experimentId, completedTasks },
          },
        },
        onConditionFailed: update.onConditionFailed,
      },
    ]);
    return { experiment: update.entity, state: { ...state, completedTasks, completionsVersion: version } };
  });
}
