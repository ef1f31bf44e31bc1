import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionSchedulePublishV2 } from '../../shared/contracts/scheduled-publish';
import { postFeatureRevisionSchedulePublishV2 as schedulePublish } from '../../shared/use-cases/scheduled-publish';

export const handler = endpoint(postFeatureRevisionSchedulePublishV2, schedulePublish);
