import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionDiscardV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionDiscardV2, revisions.postFeatureRevisionDiscardV2);
