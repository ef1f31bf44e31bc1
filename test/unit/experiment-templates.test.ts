import fc from 'fast-check';
import type { TemplateFields } from '../../shared/contracts/experiment-templates';
import { normalizeTemplateId, planImport, templateReferences } from '../../shared/domain/experiment-templates';

const data = (hypothesis: string): TemplateFields => ({
  templateMetadata: { name: 'T' },
  type: 'standard',
  datasource: 'ds',
  exposureQueryId: 'q',
  statsEngine: 'bayesian',
  targeting: { coverage: 1, condition: '{}' },
  hypothesis,
});

describe('normalizeTemplateId', () => {
  it('adds the template prefix only where it is missing', () => {
    expect(normalizeTemplateId('checkout')).toBe('tmplt__checkout');
    expect(normalizeTemplateId('tmplt__checkout')).toBe('tmplt__checkout');
  });
});

describe('planImport', () => {
  it('counts every item as added or updated, and plans one write per distinct id', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', 'tmplt__a', 'tmplt__d'), { maxLength: 20 }),
        fc.subarray(['tmplt__a', 'tmplt__b', 'tmplt__c', 'tmplt__d']),
        (ids, stored) => {
          const plan = planImport(
            ids.map((id, i) => ({ id, data: data(String(i)) })),
            new Set(stored),
          );

          const distinct = new Set(ids.map(normalizeTemplateId));
          expect(plan.added + plan.updated).toBe(ids.length);
          expect(plan.added).toBe([...distinct].filter((id) => !stored.includes(id)).length);
          expect(plan.items.map((item) => item.id)).toEqual([...distinct]);
        },
      ),
    );
  });

  it('keeps the data of the last item for a repeated id', () => {
    const plan = planImport(
      [
        { id: 'a', data: data('first') },
        { id: 'tmplt__a', data: data('second') },
      ],
      new Set(),
    );

    expect(plan).toMatchObject({ added: 1, updated: 1, items: [{ id: 'tmplt__a', data: { hypothesis: 'second' } }] });
  });
});

describe('templateReferences', () => {
  it('names each reference by its field, under the prefix given', () => {
    const refs = templateReferences(
      {
        ...data('h'),
        goalMetrics: ['m1'],
        activationMetric: 'm2',
        segment: 'seg_1',
        targeting: { coverage: 1, condition: '{}', savedGroups: [{ match: 'all', ids: ['g1'] }], prerequisites: [{ id: 'f1', condition: '{}' }] },
      },
      'templates.2.data.',
    );

    expect(refs).toEqual({
      projects: [],
      savedGroups: [{ field: 'templates.2.data.targeting.savedGroups.0.ids.0', id: 'g1' }],
      features: [{ field: 'templates.2.data.targeting.prerequisites.0.id', id: 'f1' }],
      metrics: [
        { field: 'templates.2.data.goalMetrics.0', id: 'm1' },
        { field: 'templates.2.data.activationMetric', id: 'm2' },
      ],
      segments: [{ field: 'templates.2.data.segment', id: 'seg_1' }],
    });
  });
});
