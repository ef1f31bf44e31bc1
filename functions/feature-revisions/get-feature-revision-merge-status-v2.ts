import { endpoint } from '../../shared/api/endpoint';
import { getFeatureRevisionMergeStatusV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(getFeatureRevisionMergeStatusV2, revisions.getFeatureRevisionMergeStatusV2);
