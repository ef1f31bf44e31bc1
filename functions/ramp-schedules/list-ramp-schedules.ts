import { endpoint } from '../../shared/api/endpoint';
import { paginated } from '../../shared/domain/pagination';
import { listRampSchedules } from '../../shared/contracts/ramp-schedules';
import { toApiRampSchedule } from '../../shared/domain/ramp-schedule';
import { rampListTags, rampSchedules } from '../../shared/store/ramp-schedules';

export const handler = endpoint(listRampSchedules, async ({ query, auth }) => {
  const page = await rampSchedules.list(auth.orgId, { limit: query.limit, offset: query.offset, tags: rampListTags(query) });
  const now = new Date();
  return paginated('rampSchedules', { items: page.items.map((schedule) => toApiRampSchedule(schedule, now)), total: page.total }, query);
});
