import type { DashboardBlock, NewBlock } from '../../shared/contracts/dashboards';
import { assertDashboardRules, blockReferences, newBlocks, updatedBlocks } from '../../shared/domain/dashboards';

const markdown: NewBlock = { type: 'markdown', title: 'Notes', description: '', content: 'hello' };
const ORG = 'org_1';

describe('newBlocks', () => {
  it('gives each block an id, a uid and the organization', () => {
    const [block] = newBlocks([markdown], ORG);

    expect(block).toEqual({ ...markdown, organization: ORG, id: expect.stringMatching(/^dshblk_/), uid: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });

  it('refuses a block that reaches past the grid', () => {
    expect(() => newBlocks([markdown, { ...markdown, layout: { x: 23, y: 0, w: 2, h: 1 } }], ORG)).toThrow(/\[blocks\.1\.layout\.w\]/);
  });
});

describe('updatedBlocks', () => {
  const current: DashboardBlock[] = newBlocks([markdown], ORG);
  const stored = { ...markdown, organization: ORG, id: current[0].id, uid: current[0].uid };

  it('keeps the identity of a block sent back and gives a new block its own', () => {
    const [kept, added] = updatedBlocks([{ ...stored, content: 'changed' }, markdown], current, ORG);

    expect(kept).toEqual({ ...stored, content: 'changed' });
    expect(added.id).not.toBe(current[0].id);
  });

  it('keeps the stored uid when only the id is sent back', () => {
    const [kept] = updatedBlocks([{ ...markdown, id: current[0].id }], current, ORG);

    expect(kept.uid).toBe(current[0].uid);
  });

  it.each([
    ['an id this dashboard does not have', { ...markdown, id: 'dshblk_x' }, /\[blocks\.0\.id\]/],
    ['another uid', { ...markdown, id: 'ID', uid: 'other' }, /\[blocks\.0\.uid\]/],
    ['another organization', { ...markdown, id: 'ID', organization: 'org_2' }, /\[blocks\.0\.organization\]/],
    ['a uid without an id', { ...markdown, uid: 'u' }, /\[blocks\.0\.id\]/],
    [
      'a new exploration block',
      { type: 'metric-exploration', title: '', description: '', explorerAnalysisId: 'e', config: {} },
      /\[blocks\.0\.type\]/,
    ],
  ])('refuses %s', (_case, block, message) => {
    const input = JSON.parse(JSON.stringify(block).replace('"ID"', JSON.stringify(current[0].id)));

    expect(() => updatedBlocks([input], current, ORG)).toThrow(message);
  });
});

describe('assertDashboardRules', () => {
  it.each([
    [{ experimentId: 'exp_1', enableAutoUpdates: false, updateSchedule: { type: 'stale' as const, hours: 1 } }, /\[updateSchedule\]/],
    [{ experimentId: 'exp_1', enableAutoUpdates: false, projects: ['prj_1'] }, /\[projects\]/],
    [{ enableAutoUpdates: true }, /\[updateSchedule\]/],
  ])('refuses %p', (dashboard, message) => {
    expect(() => assertDashboardRules(dashboard)).toThrow(message);
  });

  it.each([
    { enableAutoUpdates: true, updateSchedule: { type: 'cron' as const, cron: '0 * * * *' } },
    { experimentId: 'exp_1', enableAutoUpdates: true },
    { enableAutoUpdates: false },
  ])('accepts %p', (dashboard) => {
    expect(() => assertDashboardRules(dashboard)).not.toThrow();
  });
});

describe('blockReferences', () => {
  it('collects experiments with their chosen variations, snapshots and metrics, by field', () => {
    const refs = blockReferences([
      markdown,
      {
        type: 'experiment-metric', title: '', description: '', snapshotId: 'snp_1', experimentId: 'exp_1', metricIds: ['m1'],
        variationIds: ['v1'], baselineRow: 0, differenceType: 'relative', columnsFilter: [], sliceTagsFilter: [], metricTagFilter: [],
        sortBy: null, sortDirection: null,
      },
      {
        type: 'experiment-traffic', title: '', description: '', snapshotId: '', experimentId: 'exp_2', showTable: true, showTimeseries: true,
      },
    ]);

    expect(refs).toEqual({
      experiments: [
        { field: 'blocks.1.experimentId', id: 'exp_1', variationIds: [{ field: 'blocks.1.variationIds.0', id: 'v1' }] },
        { field: 'blocks.2.experimentId', id: 'exp_2', variationIds: [] },
      ],
      snapshots: [{ field: 'blocks.1.snapshotId', id: 'snp_1', experimentId: 'exp_1' }],
      metrics: [{ field: 'blocks.1.metricIds.0', id: 'm1' }],
    });
  });
});
