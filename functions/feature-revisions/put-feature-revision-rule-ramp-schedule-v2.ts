import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionRuleRampScheduleV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(putFeatureRevisionRuleRampScheduleV2, edits.putFeatureRevisionRuleRampScheduleV2);
