import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionRuleV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(putFeatureRevisionRuleV2, edits.putFeatureRevisionRuleV2);
