import { endpoint } from '../../shared/api/endpoint';
import { deleteFeatureRevisionRuleV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(deleteFeatureRevisionRuleV2, revisions.deleteFeatureRevisionRuleV2);
