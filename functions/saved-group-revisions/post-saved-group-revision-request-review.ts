import { endpoint } from '../../shared/api/endpoint';
import { postSavedGroupRevisionRequestReview } from '../../shared/contracts/saved-group-revisions';
import * as revisions from '../../shared/use-cases/saved-group-revisions';

export const handler = endpoint(postSavedGroupRevisionRequestReview, revisions.postSavedGroupRevisionRequestReview);
