import { endpoint } from '../../shared/api/endpoint';
import { deleteFeatureRevisionRuleRampScheduleV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(deleteFeatureRevisionRuleRampScheduleV2, edits.deleteFeatureRevisionRuleRampScheduleV2);
