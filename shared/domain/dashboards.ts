import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../errors';
import {
  creatableBlockTypes,
  DASHBOARD_GRID_COLUMNS,
  type Dashboard,
  type DashboardBlock,
  type NewBlock,
  type UpdateBlock,
} from '../contracts/dashboards';
import { newId } from '../ids';

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** GrowthBook's uids are UUIDs without dashes. */
const newUid = () => randomUUID().replace(/-/g, '');

/** Raises 400 for a block that would reach past the grid's right edge. */
function assertFitsGrid(block: NewBlock | UpdateBlock, field: string): void {
  if (block.layout && block.layout.x + block.layout.w > DASHBOARD_GRID_COLUMNS) {
    throw invalid(`${field}.layout.w`, `x + w must not exceed ${DASHBOARD_GRID_COLUMNS} columns`);
  }
}

/** A block a client sends, with the identity the server gives it. */
function identify(block: NewBlock, organization: string, field: string): DashboardBlock {
  assertFitsGrid(block, field);
  return { ...block, organization, id: newId('dshblk_'), uid: newUid() };
}

/** The blocks of a new dashboard. */
export function newBlocks(blocks: NewBlock[], organization: string): DashboardBlock[] {
  return blocks.map((block, i) => identify(block, organization, `blocks.${i}`));
}

/**
 * The blocks that replace a dashboard's blocks. A block without an id is new; one with an id must
 * be a block of this dashboard and keeps its identity.
 */
export function updatedBlocks(inputs: UpdateBlock[], current: DashboardBlock[], organization: string): DashboardBlock[] {
  return inputs.map((input, i) => {
    const field = `blocks.${i}`;
    const { id, uid, organization: givenOrganization, ...content } = input;
    if (id === undefined) {
      if (uid !== undefined || givenOrganization !== undefined) throw invalid(`${field}.id`, 'is required with uid and organization');
      if (!creatableBlockTypes.includes(content.type)) {
        throw invalid(`${field}.type`, `a ${content.type} block comes from running an exploration and cannot be created here`);
      }
      return identify(content as NewBlock, organization, field);
    }
    const existing = current.find((block) => block.id === id);
    if (!existing) throw invalid(`${field}.id`, `this dashboard has no block with the id ${id}`);
    if (uid !== undefined && uid !== existing.uid) throw invalid(`${field}.uid`, `does not match block ${id}`);
    if (givenOrganization !== undefined && givenOrganization !== organization) {
      throw invalid(`${field}.organization`, `does not match block ${id}`);
    }
    assertFitsGrid(input, field);
    return { ...content, organization, id, uid: existing.uid } as DashboardBlock;
  });
}

type ScheduleFields = Pick<Dashboard, 'experimentId' | 'enableAutoUpdates' | 'updateSchedule' | 'projects'>;

/**
 * An experiment dashboard follows its experiment: no schedule of its own and no projects. A general
 * dashboard that updates itself needs a schedule.
 */
export function assertDashboardRules(dashboard: ScheduleFields): void {
  if (dashboard.experimentId) {
    if (dashboard.updateSchedule) throw invalid('updateSchedule', 'an experiment dashboard updates with its experiment; leave it out');
    if (dashboard.projects?.length) throw invalid('projects', "an experiment dashboard uses its experiment's project; leave it out");
  } else if (dashboard.enableAutoUpdates && !dashboard.updateSchedule) {
    throw invalid('updateSchedule', 'is required when enableAutoUpdates is true');
  }
}

export interface BlockReferences {
  experiments: { field: string; id: string; variationIds: { field: string; id: string }[] }[];
  snapshots: { field: string; id: string; experimentId: string }[];
  metrics: { field: string; id: string }[];
}

/** What the blocks name: experiments (with the variations chosen), snapshots and metrics. */
export function blockReferences(blocks: (NewBlock | UpdateBlock)[]): BlockReferences {
  const references: BlockReferences = { experiments: [], snapshots: [], metrics: [] };
  blocks.forEach((block, i) => {
    const field = `blocks.${i}`;
    if ('experimentId' in block) {
      const variationIds = ('variationIds' in block ? (block.variationIds ?? []) : []).map((id, j) => ({
        field: `${field}.variationIds.${j}`,
        id,
      }));
      references.experiments.push({ field: `${field}.experimentId`, id: block.experimentId, variationIds });
      if (block.snapshotId) references.snapshots.push({ field: `${field}.snapshotId`, id: block.snapshotId, experimentId: block.experimentId });
    }
    if ('metricIds' in block) references.metrics.push(...block.metricIds.map((id, j) => ({ field: `${field}.metricIds.${j}`, id })));
    if ('metricId' in block && block.metricId) references.metrics.push({ field: `${field}.metricId`, id: block.metricId });
    if ('factMetricId' in block) references.metrics.push({ field: `${field}.factMetricId`, id: block.factMetricId });
  });
  return references;
}

type CreateFields = Pick<Dashboard, 'title' | 'editLevel' | 'shareLevel' | 'enableAutoUpdates' | 'updateSchedule' | 'experimentId' | 'projects'>;

/** A new dashboard: never a default or deleted one; `userId` is the member who made it, if any. */
export function newDashboard(
  fields: CreateFields & { blocks: NewBlock[] },
  organization: string,
  userId: string,
): Omit<Dashboard, 'dateCreated' | 'dateUpdated'> {
  assertDashboardRules(fields);
  const { blocks, ...rest } = fields;
  return {
    ...rest,
    id: newId('dash_'),
    uid: newUid(),
    organization,
    isDefault: false,
    isDeleted: false,
    userId,
    blocks: newBlocks(blocks, organization),
  };
}
