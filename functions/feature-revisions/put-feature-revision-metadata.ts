import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionMetadata } from '../../shared/contracts/feature-revisions-v1';
import * as revisions from '../../shared/use-cases/feature-revisions-v1';

export const handler = endpoint(putFeatureRevisionMetadata, revisions.putFeatureRevisionMetadata);
