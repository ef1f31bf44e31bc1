import type { StoredSavedGroupRevision } from '../domain/saved-group-revisions';
import { revisionStore } from './revisions';

/** Saved-group revisions in the revision engine's store (`SAVED_GROUP_REVISION#<group>#<version>`). */
export const savedGroupRevisions = revisionStore<StoredSavedGroupRevision>('SAVED_GROUP', 'savedGroupId');
