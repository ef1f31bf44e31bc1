import { evalCondition } from '@growthbook/growthbook';
import type { FeatureRule } from '../contracts/features';
import type { PayloadEntry } from './types';

/**
 * Prerequisites whose outcome is known without a user, settled on the server as GrowthBook's
 * `reduceFeaturesWithPrerequisites` settles them (back-end `util/features.ts`, with
 * `evaluatePrerequisiteState` of `shared/util`). A parent is *deterministic* when it is not served
 * (its value is then null) or has no rule, and its own prerequisites are deterministic and pass;
 * it is *conditional* when it or one of its parents has a rule. A deterministic prerequisite that
 * passes is dropped and one that fails drops its feature (or rule); a conditional one stays.
 * GrowthBook reduces every payload this way; here it is applied for SDKs without `prerequisites`
 * (which then get what GrowthBook serves them), since SDKs with it evaluate the same gates to the same values.
 */

type State = { kind: 'deterministic'; value: unknown } | { kind: 'conditional' } | { kind: 'cyclic' };

/** A feature-level prerequisite means "the parent is on". */
const PARENT_ON = '{"value": true}';

/** A prerequisite condition, as GrowthBook parses it: empty or `{}` matches nothing. */
function parsed(condition: string): Record<string, unknown> | undefined {
  if (!condition || condition === '{}') return undefined;
  try {
    return JSON.parse(condition) || undefined;
  } catch {
    return undefined;
  }
}

const passes = (value: unknown, condition: string): boolean => {
  const cond = parsed(condition);
  return cond !== undefined && evalCondition({ value: value ?? null }, cond as never);
};

/** A default value as GrowthBook casts it to evaluate a prerequisite. */
function defaultOf(entry: PayloadEntry): unknown {
  if (entry.valueType === 'boolean') return entry.defaultValue !== 'false';
  if (entry.valueType === 'number') return parseFloat(entry.defaultValue);
  if (entry.valueType === 'json') {
    try {
      return JSON.parse(entry.defaultValue);
    } catch {
      return entry.defaultValue;
    }
  }
  return entry.defaultValue;
}

/** The entries of `projects` (none means all) with their settled prerequisites reduced away. */
export function reducePrerequisites(entries: Record<string, PayloadEntry>, projects: string[]): Record<string, PayloadEntry> {
  // As GrowthBook, only the connection's features count: a parent in another project is not served.
  const served = new Map(Object.entries(entries).filter(([, entry]) => projects.length === 0 || projects.includes(entry.project)));
  const states = new Map<string, State>();

  const stateOf = (id: string, path: Set<string>): State => {
    const known = states.get(id);
    if (known) return known;
    const entry = served.get(id);
    if (!entry) return { kind: 'deterministic', value: null };
    if (path.has(id)) return { kind: 'cyclic' };
    let state: State = entry.rules.length ? { kind: 'conditional' } : { kind: 'deterministic', value: defaultOf(entry) };
    for (const parent of entry.prerequisites) {
      const parentState = stateOf(parent, new Set([...path, id]));
      if (parentState.kind === 'cyclic') {
        state = parentState;
        break;
      }
      if (parentState.kind === 'conditional') state = parentState;
      else if (!passes(parentState.value, PARENT_ON)) {
        state = { kind: 'deterministic', value: null };
        break;
      }
    }
    states.set(id, state);
    return state;
  };

  /** The prerequisites still to evaluate in the SDK; undefined when one settled as failing. */
  const remaining = <P extends { id: string; condition: string }>(prerequisites: P[]): P[] | undefined => {
    const kept: P[] = [];
    for (const prerequisite of prerequisites) {
      const state = stateOf(prerequisite.id, new Set());
      if (state.kind === 'cyclic') return undefined;
      if (state.kind === 'conditional') kept.push(prerequisite);
      else if (!passes(state.value, prerequisite.condition)) return undefined;
    }
    return kept;
  };

  const reduced: Record<string, PayloadEntry> = {};
  for (const [id, entry] of served) {
    const own = remaining(entry.prerequisites.map((parent) => ({ id: parent, condition: PARENT_ON })));
    if (!own) continue;
    const rules: FeatureRule[] = [];
    for (const rule of entry.rules) {
      const left = rule.prerequisites?.length ? remaining(rule.prerequisites) : rule.prerequisites;
      if (left === undefined && rule.prerequisites?.length) continue;
      rules.push(left === rule.prerequisites ? rule : { ...rule, prerequisites: left });
    }
    reduced[id] = { ...entry, prerequisites: own.map((prerequisite) => prerequisite.id), rules };
  }
  return reduced;
}
