import fc from 'fast-check';
import { planBatches } from '../../functions/scheduler/advance-ramp-schedules';
import { shardOf } from '../../shared/payload/write';

const dueRefs = fc.array(
  fc.record({
    orgId: fc.constantFrom('org_a', 'org_b', 'org_c'),
    id: fc.uuid(),
    featureId: fc.string({ minLength: 1, maxLength: 12 }),
  }),
  { maxLength: 300 },
);

describe('planning the batches of a ramp advancer run', () => {
  it('puts every due schedule in one batch of its own organization, at most `size` per batch', () => {
    fc.assert(
      fc.property(dueRefs, fc.integer({ min: 1, max: 30 }), (refs, size) => {
        const batches = planBatches(refs, size);
        const planned = batches.flatMap((batch) => batch.refs);
        expect(planned.map((ref) => ref.id).sort()).toEqual(refs.map((ref) => ref.id).sort());
        for (const batch of batches) {
          expect(batch.refs.length).toBeGreaterThan(0);
          expect(batch.refs.length).toBeLessThanOrEqual(size);
          expect(new Set(batch.refs.map((ref) => ref.orgId)).size).toBe(1);
          expect(batch.shards).toEqual(new Set(batch.refs.map((ref) => `${ref.orgId}#${shardOf(ref.featureId)}`)));
        }
      }),
    );
  });

  it("cuts an organization's schedules in shard order, so that a batch spans as few shards as it can", () => {
    fc.assert(
      fc.property(dueRefs, fc.integer({ min: 1, max: 30 }), (refs, size) => {
        const batches = planBatches(refs, size);
        for (const orgId of new Set(refs.map((ref) => ref.orgId))) {
          const shardsInOrder = batches
            .filter((batch) => batch.refs[0].orgId === orgId)
            .map((batch) => batch.refs.map((ref) => shardOf(ref.featureId)));
          // The batches cut one list sorted by shard: each shard's schedules fill consecutive batches.
          const all = shardsInOrder.flat();
          expect(all).toEqual([...all].sort((a, b) => (a === b ? 0 : a < b ? -1 : 1)));
        }
      }),
    );
  });
});
