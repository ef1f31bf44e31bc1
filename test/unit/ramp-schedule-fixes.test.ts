import { assertForcedValuesFit } from '../../shared/domain/ramp-definition';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { baseFeature, createSchedule, FEATURE_ID, featureWith, forceRule, T0 } from './ramp-schedule-fixtures';

describe('forced values', () => {
  const forcing = (force: unknown) =>
    createSchedule(
      { featureId: FEATURE_ID, ruleId: 'fr_force', steps: [{ trigger: { type: 'approval' }, actions: [{ patch: { force } }] }] },
      featureWith({ production: [forceRule('fr_force')] }),
    );

  it('accepts a value the feature type holds', () => {
    expect(() => assertForcedValuesFit(forcing(true), 'boolean')).not.toThrow();
    expect(() => assertForcedValuesFit(forcing('on'), 'string')).not.toThrow();
    expect(() => assertForcedValuesFit(forcing({ size: 3 }), 'json')).not.toThrow();
  });

  it('refuses with 400 a value the feature type cannot hold, naming the action', () => {
    expect(() => assertForcedValuesFit(forcing('banana'), 'boolean')).toThrow(/^Request body: \[steps\.0\.actions\.0\.patch\.force\] is not a valid boolean value/);
    expect(() => assertForcedValuesFit(forcing('twelve'), 'number')).toThrow(/is not a valid number value/);
  });

  it('checks end actions too', () => {
    const schedule = createSchedule(
      { featureId: FEATURE_ID, ruleId: 'fr_force', endActions: [{ patch: { force: 'nope' } }] },
      featureWith({ production: [forceRule('fr_force')] }),
    );

    expect(() => assertForcedValuesFit(schedule, 'boolean')).toThrow(/\[endActions\.0\.patch\.force\]/);
  });
});

describe('the API view of a stored schedule', () => {
  it('answers entityType "feature" even when the store took the field back as its own attribute', () => {
    const { entityType: _shadowed, ...stored } = createSchedule({ featureId: FEATURE_ID, ruleId: 'fr_1' }, baseFeature());

    const view = toApiRampSchedule(stored as never, T0);

    expect(view.entityType).toBe('feature');
  });
});
