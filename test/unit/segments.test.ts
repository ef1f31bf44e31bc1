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
  it('starts from the change alone when the type changes', () => {
    expect(segmentDefinitionAfter(fact, { type: 'SQL', query: 'SELECT 1' })).toEqual({
      type: 'SQL',
      datasourceId: 'ds',
      query: 'SELECT 1',
      factTableId: undefined,
      filters: undefined,
    });
  });

  it('keeps the filters while the fact table stays', () => {
    expect(segmentDefinition(segmentDefinitionAfter(fact, { name: 'x' }), lookup)).toEqual({
      type: 'FACT',
      factTableId: 'ftb_1',
      filters: ['f1'],
    });
  });
});

describe('segmentDefinition', () => {
  it('refuses fields of the other type', () => {
    expect(() => segmentDefinition({ type: 'SQL', datasourceId: 'ds', query: 'q', filters: [] }, lookup)).toThrow('[filters]');
    expect(() => segmentDefinition({ type: 'FACT', datasourceId: 'ds', factTableId: 'ftb_1', query: 'q' }, lookup)).toThrow('[query]');
  });
});
