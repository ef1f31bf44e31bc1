import { scenario, type Ids } from '../../bench/scenarios';
import { matchRoute } from '../../infra/local/server';
import { routes } from '../../shared/contracts/registry';

const registered = routes.map((route) => route.spec.operationId);
const stepIds = scenario.map((step) => step.operationId);

/** Ids for building paths without running anything: every name gets a value of its own. */
const placeholderIds = new Proxy({} as Ids, { get: (_target, name) => `x_${String(name)}` });

describe('the bench scenario', () => {
  it('has a step for every endpoint of the registry', () => {
    const missing = registered.filter((id) => !stepIds.includes(id));

    expect(missing).toEqual([]);
  });

  it('has exactly one step per endpoint', () => {
    const repeated = stepIds.filter((id, i) => stepIds.indexOf(id) !== i);

    expect(repeated).toEqual([]);
  });

  it('names only endpoints of the registry', () => {
    const unknown = stepIds.filter((id) => !registered.includes(id));

    expect(unknown).toEqual([]);
  });

  it.each(scenario.map((step) => [step.operationId, step] as const))('sends %s to the route of that endpoint', (operationId, step) => {
    const path = step.path(placeholderIds).split('?')[0];

    const match = matchRoute(step.method, path);

    expect(match?.route.spec.operationId).toBe(operationId);
  });

  it('states a minimum and its reason for every step', () => {
    const unexplained = scenario.filter(
      (step) => !Number.isInteger(step.minimum.calls) || step.minimum.calls < 0 || step.minimum.why.trim() === '',
    );

    expect(unexplained.map((step) => step.operationId)).toEqual([]);
  });

  it('puts every delete after every other step, so the steps before them leave all data in place', () => {
    const firstDelete = scenario.findIndex((step) => step.method === 'DELETE');
    const writesAfter = scenario.slice(firstDelete).filter((step) => step.method !== 'DELETE');

    expect(writesAfter.map((step) => step.operationId)).toEqual([]);
  });
});
