import { endpoint } from '../../shared/api/endpoint';
import { getFeatureRevisionsV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(getFeatureRevisionsV2, revisions.getFeatureRevisionsV2);
