import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRulesReorderV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionRulesReorderV2, revisions.postFeatureRevisionRulesReorderV2);
