import type { SavedGroup } from '../contracts/saved-groups';
import type { ActivityAction, SavedGroupRevision, SavedGroupRevisionStatus } from '../contracts/saved-group-revisions';
import { InvalidInputError } from '../errors';
import { fromSavedGroupRule, ruleFor, type ApprovalSettings, type ChangeScope, type ReviewRule } from './revision-reviews';
import {
  changedFields,
  mergeFlat,
  openStatuses,
  type FieldConflict,
  type FieldStrategy,
  type RevisionRecord,
  type RevisionStatus,
} from './revisions';

/**
 * Saved groups' part of the revision engine: the fields a revision holds, the merge over them
 * (`mergeFlat`, GrowthBook's field-by-field merge of its generic revisions), and the revision as
 * GrowthBook 5 shows it. A group's type and attribute are fixed at creation, so no revision holds them.
 */

/** The fields of a saved group a revision changes. */
export const SAVED_GROUP_FIELDS = ['name', 'owner', 'description', 'projects', 'condition', 'values', 'archived'] as const;
export type SavedGroupFields = Pick<SavedGroup, 'owner' | 'ownerEmail' | 'description' | 'projects' | 'condition' | 'values' | 'archived'> & {
  name: string;
};

/** One line of a revision's activity log. */
export interface ActivityEntry {
  id: string;
  userId: string;
  action: ActivityAction;
  description?: string;
  dateCreated: string;
}

/** A saved-group revision as stored (`SAVED_GROUP_REVISION#<group>#<version>`). */
export type StoredSavedGroupRevision = RevisionRecord & {
  id: string;
  savedGroupId: string;
  title?: string;
  comment?: string;
  /** The live group the draft branched from (or was last rebased on); for a published one, the live group it merged into. */
  base: SavedGroup;
  /** The fields the draft would publish; for a published one, what went live. */
  proposed: SavedGroupFields;
  activityLog: ActivityEntry[];
  resolution?: { action: 'merged' | 'discarded'; userId: string; dateCreated: string };
  revertedFrom?: string;
  autoPublishOnApproval?: boolean;
  autoPublishEnabledBy?: string;
  scheduledPublishAt?: string;
  scheduledPublishLockEdits?: boolean;
  scheduledPublishLockOthers?: boolean;
  scheduledPublishBypassApproval?: boolean;
  scheduledPublishAttempts?: number;
  scheduledPublishLastError?: string;
  scheduledPublishGaveUpAt?: string;
  /** The key that last armed a publish, on approval or scheduled (not shown): it runs as that key, read again when it fires. */
  scheduledPublishKeyId?: string;
  /** When a failed scheduled publish is tried again (its boundary's date). */
  scheduledPublishNextAttemptAt?: string;
};

/** The revision fields of a saved group as it is (absent ones as GrowthBook defaults them). */
export function fieldsOfGroup(group: SavedGroup): SavedGroupFields {
  return {
    name: group.name,
    owner: group.owner ?? '',
    ...(group.ownerEmail !== undefined ? { ownerEmail: group.ownerEmail } : {}),
    description: group.description ?? '',
    projects: group.projects ?? [],
    ...(group.type === 'condition' ? { condition: group.condition ?? '{}' } : { values: group.values ?? [] }),
    archived: group.archived ?? false,
  };
}

/** The group with a revision's fields in place of its own (an owner's e-mail goes with its owner). */
export function withGroupFields(group: SavedGroup, fields: SavedGroupFields): SavedGroup {
  const { ownerEmail: _previous, ...rest } = group;
  const next: SavedGroup = { ...rest, ...fields };
  if (fields.ownerEmail === undefined) delete next.ownerEmail;
  if (group.type === 'condition') delete next.values;
  else delete next.condition;
  return next;
}

/** The status as GrowthBook names it for saved groups: a published revision is `merged`. */
export const shownStatus = (status: RevisionStatus): SavedGroupRevisionStatus => (status === 'published' ? 'merged' : status);

/** The engine's status for a status GrowthBook names (`merged` is `published`). */
export const storedStatus = (status: SavedGroupRevisionStatus): RevisionStatus => (status === 'merged' ? 'published' : status);

/** Refuses an action on a revision no longer open, naming its status as GrowthBook does. */
export function assertOpen(revision: { status: RevisionStatus }, action: string): void {
  if (!openStatuses.includes(revision.status)) {
    throw new InvalidInputError(`Cannot ${action} a revision with status "${shownStatus(revision.status)}"`);
  }
}

/**
 * A draft merged into the live group: `mergeFlat` over the saved-group fields; the owner's e-mail
 * follows whichever owner wins. Conflicts as GrowthBook reports them (`field`, `baseValue`,
 * `liveValue`, `proposedValue`).
 */
export function mergeGroup(
  live: SavedGroup,
  draft: Pick<StoredSavedGroupRevision, 'base' | 'proposed'>,
  settle?: { strategies?: Record<string, FieldStrategy>; customValues?: Record<string, unknown[]> },
) {
  const liveFields = fieldsOfGroup(live);
  const outcome = mergeFlat(SAVED_GROUP_FIELDS, { live: liveFields, base: fieldsOfGroup(draft.base), revision: draft.proposed }, settle);
  const conflicts = outcome.conflicts.map(shownConflict);
  if (!outcome.success) return { success: false as const, conflicts };
  const merged = { ...outcome.merged };
  const email = merged.owner === draft.proposed.owner ? draft.proposed.ownerEmail : liveFields.ownerEmail;
  if (email === undefined) delete merged.ownerEmail;
  else merged.ownerEmail = email;
  return { success: true as const, merged, conflicts };
}

const shownConflict = (conflict: FieldConflict) => ({
  field: conflict.field,
  baseValue: conflict.base ?? null,
  liveValue: conflict.live ?? null,
  proposedValue: conflict.revision ?? null,
});

/** Whether a revision's fields would change nothing in the live group. */
export const changesNothing = (live: SavedGroup, fields: SavedGroupFields) =>
  changedFields(SAVED_GROUP_FIELDS, fieldsOfGroup(live), fields).length === 0;

/** The fields of GrowthBook's `SavedGroup`, as the API shows a group. */
const SHOWN_GROUP_FIELDS = [
  'id',
  'type',
  'dateCreated',
  'dateUpdated',
  'name',
  'owner',
  'ownerEmail',
  'condition',
  'attributeKey',
  'values',
  'description',
  'projects',
  'archived',
  'useEmptyListGroup',
] as const satisfies ReadonlyArray<keyof SavedGroup>;

/** The group as the API shows it: only the fields of GrowthBook's `SavedGroup` that it has. */
const shownGroup = (group: SavedGroup): SavedGroup =>
  Object.fromEntries(SHOWN_GROUP_FIELDS.flatMap((field) => (group[field] === undefined ? [] : [[field, group[field]]]))) as SavedGroup;

/** A revision as GrowthBook 5 answers it (`SavedGroupRevision`). */
export function presentSavedGroupRevision(revision: StoredSavedGroupRevision): SavedGroupRevision {
  const base = fieldsOfGroup(revision.base);
  const proposedGroup = withGroupFields(revision.base, revision.proposed);
  const changes = changedFields(SAVED_GROUP_FIELDS, base, revision.proposed).map((field) => ({
    op: field in revision.base && revision.base[field] !== undefined ? ('replace' as const) : ('add' as const),
    path: `/${field}`,
    value: revision.proposed[field],
  }));
  const reviews = (revision.reviews ?? []).map((review) => ({
    id: `${review.userId}@${review.timestamp}`,
    userId: review.userId,
    decision: review.status.startsWith('approved') ? ('approve' as const) : ('request-changes' as const),
    ...(review.status.endsWith('-stale') ? { stale: true } : {}),
    dateCreated: review.timestamp,
  }));
  const optional = <K extends keyof StoredSavedGroupRevision>(...names: K[]) =>
    Object.fromEntries(names.flatMap((name) => (revision[name] !== undefined ? [[name, revision[name]]] : [])));
  return {
    id: revision.id,
    version: revision.version,
    ...(revision.title ? { title: revision.title } : {}),
    status: shownStatus(revision.status),
    authorId: revision.createdBy ?? '',
    ...(revision.contributors?.length ? { contributors: revision.contributors } : {}),
    ...optional(
      'revertedFrom',
      'autoPublishOnApproval',
      'autoPublishEnabledBy',
      'scheduledPublishAt',
      'scheduledPublishLockEdits',
      'scheduledPublishLockOthers',
      'scheduledPublishBypassApproval',
      'scheduledPublishAttempts',
      'scheduledPublishLastError',
      'scheduledPublishGaveUpAt',
      'resolution',
    ),
    reviews,
    activityLog: revision.activityLog,
    dateCreated: revision.date,
    dateUpdated: revision.dateUpdated ?? revision.date,
    baseSavedGroup: shownGroup(revision.base),
    proposedSavedGroup: shownGroup(proposedGroup),
    proposedChanges: changes,
  };
}

/** A saved group's metadata, as GrowthBook's review rule may exempt it (`requireMetadataReview: false`). */
const METADATA_FIELDS: ReadonlyArray<string> = ['name', 'owner', 'description', 'projects', 'archived'];

/** What a change of a group's fields touches, as the review decision reads it (saved groups have no environments). */
export function groupChangeScope(before: SavedGroupFields, after: SavedGroupFields): ChangeScope {
  const changed = changedFields(SAVED_GROUP_FIELDS, before, after);
  const global = changed.length === 0 ? 'none' : changed.every((field) => METADATA_FIELDS.includes(field)) ? 'metadata' : 'other';
  return { global, ruleEnvironments: [], toggledEnvironments: [], environmentCount: 0 };
}

/** The approval rule for a saved group in `projects` (`approvalFlows.savedGroups`), in the common form. */
export const groupReviewRule = (settings: ApprovalSettings, projects: string[]): ReviewRule | undefined =>
  fromSavedGroupRule(ruleFor(settings.approvalFlows.savedGroups, projects));
