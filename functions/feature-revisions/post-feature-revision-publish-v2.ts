import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionPublishV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionPublishV2, revisions.postFeatureRevisionPublishV2);
