import type { Experiment } from '../../shared/contracts/experiments';
import type { StoredVisualChangeset } from '../../shared/contracts/visual-changesets';
import { newExperiment } from '../../shared/domain/experiments';
import {
  assertUrlPatterns,
  contentChanged,
  emptyVisualChanges,
  patchVisualChange,
  replaceVisualChanges,
  visualChangesetView,
} from '../../shared/domain/visual-changesets';

const NOW = '2024-06-01T00:00:00.000Z';
const experiment: Experiment = {
  ...newExperiment(
    { trackingKey: 'k', name: 'n', variations: [{ key: 'a', name: 'A' }, { key: 'b', name: 'B' }] },
    { owner: '' },
    NOW,
  ),
  dateCreated: NOW,
  dateUpdated: NOW,
};
const [control, treatment] = experiment.variations.map((v) => v.variationId);
const changeset = (): StoredVisualChangeset => ({
  id: 'vcs_1',
  experiment: experiment.id,
  editorUrl: 'https://example.com',
  urlPatterns: [{ type: 'simple', pattern: '/' }],
  visualChanges: emptyVisualChanges(experiment),
  dateCreated: NOW,
  dateUpdated: NOW,
});

describe('emptyVisualChanges', () => {
  it('makes one empty change per variation, each with its own id', () => {
    const changes = emptyVisualChanges(experiment);

    expect(changes.map((c) => c.variation)).toEqual([control, treatment]);
    expect(new Set(changes.map((c) => c.id)).size).toBe(2);
    expect(changes.every((c) => c.id.startsWith('vc_') && c.domMutations.length === 0)).toBe(true);
  });
});

describe('assertUrlPatterns', () => {
  it('accepts simple patterns and compiling regexes, and refuses the rest by index', () => {
    expect(() => assertUrlPatterns([{ type: 'simple', pattern: '(' }, { type: 'regex', pattern: '^/a$' }])).not.toThrow();
    expect(() => assertUrlPatterns([{ type: 'simple', pattern: '/' }, { type: 'regex', pattern: '(' }])).toThrow(/\[urlPatterns\.1\.pattern\]/);
  });
});

describe('replaceVisualChanges', () => {
  it('keeps given ids, makes missing ones, and refuses variations of other experiments', () => {
    const changes = replaceVisualChanges([{ id: 'vc_keep', variation: control }, { variation: treatment }], experiment);

    expect(changes[0].id).toBe('vc_keep');
    expect(changes[1].id).toMatch(/^vc_/);
    expect(() => replaceVisualChanges([{ variation: 'var_other' }], experiment)).toThrow(/\[visualChanges\.0\.variation\]/);
  });
});

describe('patchVisualChange', () => {
  it('changes only the given fields and never the id', () => {
    const [current] = changeset().visualChanges;

    expect(patchVisualChange(current, { css: 'a{}' }, experiment)).toEqual({ ...current, css: 'a{}' });
    expect(() => patchVisualChange(current, { id: 'vc_other' }, experiment)).toThrow(/\[id\]/);
  });
});

describe('contentChanged and visualChangesetView', () => {
  it('sees a change in what the API shows, not in the dates', () => {
    const before = changeset();

    expect(contentChanged(before, { ...before, dateUpdated: '2030-01-01T00:00:00.000Z' })).toBe(false);
    expect(contentChanged(before, { ...before, editorUrl: 'https://other.example' })).toBe(true);
  });

  it('leaves out the ids of visual changes', () => {
    const view = visualChangesetView(changeset());

    expect(view.visualChanges.every((c) => !('id' in c))).toBe(true);
    expect(view).not.toHaveProperty('dateCreated');
  });
});
