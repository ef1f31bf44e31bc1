import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRuleAddV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(postFeatureRevisionRuleAddV2, edits.postFeatureRevisionRuleAddV2);
