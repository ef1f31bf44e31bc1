import { transact } from '../../shared/db/repository';
import { NewerSnapshotHoldsPointerError, prepareLatestPointer, readLatestPointers } from '../../shared/store/snapshot-results';

const orgId = `org_pointer_${Date.now()}`;
const pointer = (snapshotId: string, createdOrder: string) => prepareLatestPointer(orgId, { experimentId: 'exp_1', phase: 0, dimension: '', snapshotId, createdOrder });

describe('the latest-snapshot pointer', () => {
  it('moves to a snapshot asked for later, and never back to an older one that finishes after it', async () => {
    await transact([pointer('snp_old', '2024-01-01T00:00:00.000Z#snp_old')]);
    await transact([pointer('snp_new', '2024-01-01T00:00:01.000Z#snp_new')]);

    await expect(transact([pointer('snp_old', '2024-01-01T00:00:00.000Z#snp_old')])).rejects.toBeInstanceOf(NewerSnapshotHoldsPointerError);

    expect((await readLatestPointers(orgId, 'exp_1', '')).get(0)?.snapshotId).toBe('snp_new');
    expect((await readLatestPointers(orgId, 'exp_1', 'exp:country')).size).toBe(0);
  });
});
