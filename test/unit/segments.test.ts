import type { Segment } from '../../shared/contracts/segments';
import { segmentDefinition, segmentDefinitionAfter } from '../../shared/domain/segments';

const lookup = (id: string) => (id === 'ftb_1' ? { datasource: 'ds', filters: [{ id: 'f1' }] } : undefined);
const fact: Segment = {
  id: 'seg_1',
  owner: '',
  datasourceId: 'ds',
  identifierType: 'id',
  name: 'S',
  dateCreated: 'c',
  dateUpdated: 'u',
  type: 'FACT',
  factTableId: 'ftb_1',
  filters: ['f1'],
};

describe('segmentDefinitionAfter', () => {
  it('refuses a change of type, as GrowthBook does', () => {
    expect(() => segmentDefinitionAfter(fact, { type: 'SQL', query: 'SELECT 1' })).toThrow('[type] cannot change');
  });

  it('keeps the filters while the fact table stays', () => {
    expect(segmentDefinition(segmentDefinitionAfter(fact, { name: 'x' }), lookup)).toEqual({
      type: 'FACT',
      query: '',
      factTableId: 'ftb_1',
      filters: ['f1'],
    });
  });
});

describe('segmentDefinition', () => {
  it('refuses fields of the other type', () => {
    expect(() => segmentDefinition({ type: 'SQL', datasourceId: 'ds', query: 'q', filters: ['f1'] }, lookup)).toThrow('[filters]');
    expect(() => segmentDefinition({ type: 'FACT', datasourceId: 'ds', factTableId: 'ftb_1', query: 'q' }, lookup)).toThrow('[query]');
  });
});
