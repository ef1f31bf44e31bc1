import { endpoint } from '../../shared/api/endpoint';
import { getSavedGroupRevisions } from '../../shared/contracts/saved-group-revisions';
import * as revisions from '../../shared/use-cases/saved-group-revisions';

export const handler = endpoint(getSavedGroupRevisions, revisions.getSavedGroupRevisions);
