import { InvalidInputError } from '../errors';
import type { Experiment } from '../contracts/experiments';
import type {
  StoredVisualChange,
  StoredVisualChangeset,
  VisualChangeInput,
  urlPattern,
} from '../contracts/visual-changesets';
import type * as z from '../contracts/zod';
import { newId } from '../ids';

type UrlPattern = z.infer<typeof urlPattern>;

const invalid = (field: string, problem: string) => new InvalidInputError(`Request body: [${field}] ${problem}`);

/** Raises 400 for a `regex` URL pattern that does not compile. */
export function assertUrlPatterns(patterns: UrlPattern[]): void {
  patterns.forEach((pattern, i) => {
    if (pattern.type !== 'regex') return;
    try {
      new RegExp(pattern.pattern);
    } catch {
      throw invalid(`urlPatterns.${i}.pattern`, `is not a valid regular expression: ${pattern.pattern}`);
    }
  });
}

/** A new changeset starts with one empty visual change per variation of its experiment. */
export function emptyVisualChanges(experiment: Experiment): StoredVisualChange[] {
  return experiment.variations.map((v) => ({ id: newId('vc_'), variation: v.variationId, description: '', css: '', domMutations: [] }));
}

/** A visual change from its input; its variation must be one of the experiment's. `prefix` leads the field names in errors. */
export function buildVisualChange(input: VisualChangeInput, experiment: Experiment, prefix = ''): StoredVisualChange {
  assertVariation(input.variation, experiment, `${prefix}variation`);
  return { ...input, id: input.id ?? newId('vc_'), domMutations: input.domMutations ?? [] };
}

function assertVariation(variation: string, experiment: Experiment, field: string): void {
  if (!experiment.variations.some((v) => v.variationId === variation)) {
    throw invalid(field, `experiment ${experiment.id} has no variation with the id ${variation}`);
  }
}

/** The list that replaces a changeset's visual changes; ids must be distinct. */
export function replaceVisualChanges(inputs: VisualChangeInput[], experiment: Experiment): StoredVisualChange[] {
  const changes = inputs.map((input, i) => buildVisualChange(input, experiment, `visualChanges.${i}.`));
  const ids = changes.map((c) => c.id);
  const duplicate = ids.findIndex((id, i) => ids.indexOf(id) !== i);
  if (duplicate >= 0) throw invalid(`visualChanges.${duplicate}.id`, `${ids[duplicate]} is used by another visual change`);
  return changes;
}

/** One visual change with a partial update applied; the path names it, so a different body id is refused. */
export function patchVisualChange(
  current: StoredVisualChange,
  patch: Partial<VisualChangeInput>,
  experiment: Experiment,
): StoredVisualChange {
  if (patch.id !== undefined && patch.id !== current.id) throw invalid('id', 'cannot change the id of a visual change');
  if (patch.variation !== undefined) assertVariation(patch.variation, experiment, 'variation');
  return { ...current, ...patch, id: current.id };
}

/** Whether two changesets differ in what the API shows (the basis of `nModified`). */
export function contentChanged(before: StoredVisualChangeset, after: StoredVisualChangeset): boolean {
  return JSON.stringify(visualChangesetView(before)) !== JSON.stringify(visualChangesetView(after));
}

/** A changeset as the API shows it: the visual changes without their ids. */
export function visualChangesetView(changeset: StoredVisualChangeset) {
  return {
    id: changeset.id,
    urlPatterns: changeset.urlPatterns,
    editorUrl: changeset.editorUrl,
    experiment: changeset.experiment,
    visualChanges: changeset.visualChanges.map(({ id: _id, ...change }) => change),
  };
}
