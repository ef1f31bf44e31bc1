import fc from 'fast-check';
import type { FactMetricInput } from '../../shared/contracts/fact-metrics';
import {
  buildFactMetric,
  factMetricInputAfter,
  factMetricTags,
  filterIdsUsed,
  redefined,
  storedTablesLookup,
} from '../../shared/domain/fact-metrics';

const tables = {
  orders: { datasource: 'ds_main', filters: [{ id: 'us' }] },
  visits: { datasource: 'ds_main', filters: [{ id: 'mobile' }] },
};
const lookup = (id: string) => tables[id as keyof typeof tables];
const mean: FactMetricInput = { name: 'Revenue', metricType: 'mean', numerator: { factTableId: 'orders', column: 'amount' } };
const ratio: FactMetricInput = { ...mean, metricType: 'ratio', denominator: { factTableId: 'visits', column: '$$count', aggregation: 'sum' } };
const stored = (input: FactMetricInput) => ({ id: 'fact__1', owner: 'u_1', dateCreated: 'c', dateUpdated: 'u', ...buildFactMetric(input, lookup) });

describe('buildFactMetric', () => {
  it('accepts risk thresholds exactly when success does not exceed danger', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (success, danger) => {
        const build = () => buildFactMetric({ ...mean, riskThresholdSuccess: success, riskThresholdDanger: danger }, lookup);

        if (success <= danger) expect(build()).toMatchObject({ riskThresholdSuccess: success, riskThresholdDanger: danger });
        else expect(build).toThrow(/\[riskThresholdSuccess\]/);
      }),
    );
  });

  it('names fields under the given path, for bulk import', () => {
    expect(() => buildFactMetric({ ...mean, numerator: { factTableId: 'nowhere', column: 'a' } }, lookup, 'factMetrics.7.data.')).toThrow(
      'Request body: [factMetrics.7.data.numerator.factTableId] no fact table nowhere',
    );
  });

  it('takes the datasource from the numerator fact table', () => {
    expect(buildFactMetric(mean, lookup).datasource).toBe('ds_main');
  });

  it('leaves the aggregation out of a stored denominator, whose reference shape has none', () => {
    expect(buildFactMetric(ratio, lookup).denominator).not.toHaveProperty('aggregation');
  });
});

describe('factMetricInputAfter', () => {
  it('keeps every stored field that the change leaves out', () => {
    const current = stored({ ...mean, description: 'kept', inverse: true });

    const rebuilt = buildFactMetric(factMetricInputAfter(current, { name: 'New' }), lookup);

    expect(redefined(current, rebuilt)).toEqual({ ...current, name: 'New' });
  });

  it('drops the denominator when a ratio becomes another type', () => {
    expect(factMetricInputAfter(stored(ratio), { metricType: 'mean' })).not.toHaveProperty('denominator');
  });
});

describe('storedTablesLookup', () => {
  it('rebuilds an unchanged metric exactly as the fact tables themselves would', () => {
    const current = stored({ ...ratio, numerator: { factTableId: 'orders', column: 'amount', filters: ['us'] } });
    const input = factMetricInputAfter(current, { name: 'Renamed' });

    expect(buildFactMetric(input, storedTablesLookup(current))).toEqual(buildFactMetric(input, lookup));
  });

  it('knows only the tables the metric uses, with only the filters it uses', () => {
    const known = storedTablesLookup(stored({ ...mean, numerator: { factTableId: 'orders', column: 'amount', filters: ['us'] } }));

    expect(known('orders')).toEqual({ datasource: 'ds_main', filters: [{ id: 'us' }] });
    expect(known('visits')).toBeUndefined();
  });
});

describe('factMetricTags', () => {
  it('tags the numerator table for the list filter and every used table and filter for delete checks', () => {
    const metric = stored({
      ...ratio,
      numerator: { factTableId: 'orders', column: 'a', filters: ['us'], rowFilters: [{ operator: 'saved_filter', values: ['us'] }] },
      projects: ['prj_1'],
    });

    expect(factMetricTags(metric)).toEqual(['datasource:ds_main', 'project:prj_1', 'factTable:orders', 'uses:orders', 'filter:orders/us', 'uses:visits']);
  });

  it('counts a saved_filter row filter as a used filter', () => {
    expect(filterIdsUsed({ filters: ['a'], rowFilters: [{ operator: 'saved_filter', values: ['b', 'a'] }, { operator: '=', values: ['c'] }] })).toEqual(['a', 'b']);
  });
});
