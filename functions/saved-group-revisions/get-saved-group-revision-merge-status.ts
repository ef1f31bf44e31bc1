import { endpoint } from '../../shared/api/endpoint';
import { getSavedGroupRevisionMergeStatus } from '../../shared/contracts/saved-group-revisions';
import * as revisions from '../../shared/use-cases/saved-group-revisions';

export const handler = endpoint(getSavedGroupRevisionMergeStatus, revisions.getSavedGroupRevisionMergeStatus);
