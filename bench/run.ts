/**
 * `npm run bench`: starts its own DynamoDB Local, seeds it, and prints every benchmark table
 * (also written as JSON under bench/results/).
 */
import { benchDynamo, benchOrganization } from './environment';

async function main() {
  const dynamo = await benchDynamo();
  try {
    const seed = await benchOrganization();
    const { measureDynamoCost } = await import('./dynamo-cost');
    const { ids } = await measureDynamoCost({ key: seed.key, ids: { memberId: seed.memberId, email: seed.email } });

    const { savedGroups } = await import('../shared/store/saved-groups');
    const group = await savedGroups.create(seed.orgId, { id: 'grp_load', name: 'Load', type: 'list', attributeKey: 'id', values: [] });
    const { measureLoad } = await import('./load');
    await measureLoad({ key: seed.key, savedGroupId: group.id });
    void ids;
  } finally {
    dynamo.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
