/**
 * `npm run bench`: starts its own DynamoDB Local, seeds it, and prints every benchmark table
 * (also written as JSON under bench/results/), then regenerates docs/performance.md from those files.
 * `npm run bench -- cost latency` runs only those.
 */
import { benchDynamo, benchOrganization } from './environment';

const all = ['bundles', 'cost', 'latency', 'features', 'revisions', 'ramp', 'load', 'payload', 'snapshot', 'publish', 'monitoring'] as const;
const chosen = new Set(process.argv.slice(2).length ? process.argv.slice(2) : all);

async function main() {
  const dynamo = await benchDynamo();
  try {
    if (chosen.has('bundles')) {
      const { printBundleSizes } = await import('./bundle-sizes');
      await printBundleSizes();
    }
    if (chosen.has('cost')) {
      const seed = await benchOrganization();
      const { measureDynamoCost } = await import('./dynamo-cost');
      await measureDynamoCost({ key: seed.key, ids: { memberId: seed.memberId, email: seed.email, memberToken: seed.memberToken } });
    }
    if (chosen.has('latency')) {
      const { measureLatency } = await import('./latency');
      const { keys } = await import('../shared/db/keys');
      await measureLatency(async () => {
        const seed = await benchOrganization();
        const { PK, SK } = keys.organization(seed.orgId);
        return { key: seed.key, ids: { memberId: seed.memberId, email: seed.email, memberToken: seed.memberToken }, bareKey: { pk: PK, sk: SK } };
      });
    }
    if (chosen.has('features')) {
      const { benchFeaturesList } = await import('./features-list');
      await benchFeaturesList();
    }
    if (chosen.has('revisions')) {
      const { benchRevisionsList } = await import('./revisions-list');
      await benchRevisionsList();
    }
    if (chosen.has('ramp')) {
      const { benchRampAdvancer } = await import('./ramp-advancer');
      await benchRampAdvancer();
    }
    if (chosen.has('load')) {
      const seed = await benchOrganization();
      const { savedGroups } = await import('../shared/store/saved-groups');
      const group = await savedGroups.create(seed.orgId, { id: 'grp_load', name: 'Load', type: 'list', attributeKey: 'id', values: [] });
      const { measureLoad } = await import('./load');
      const { keys } = await import('../shared/db/keys');
      await measureLoad({ key: seed.key, savedGroupId: group.id, savedGroupKey: keys.entity(seed.orgId, 'SAVED_GROUP', group.id) });
    }
    if (chosen.has('snapshot')) {
      const { benchSnapshot } = await import('./snapshot');
      await benchSnapshot();
    }
    if (chosen.has('publish')) {
      const { benchPublishFlows } = await import('./publish-flows');
      await benchPublishFlows();
    }
    if (chosen.has('monitoring')) {
      const { benchRampMonitoring } = await import('./ramp-monitoring');
      await benchRampMonitoring();
    }
    if (chosen.has('payload')) {
      const { benchSdkPayload } = await import('./sdk-payload');
      await benchSdkPayload(dynamo.process.pid);
    }
  } finally {
    dynamo.stop();
  }
  // The page cites the results files, so it is rendered again from whatever this run wrote.
  const { writePerformanceDoc } = await import('./performance-doc');
  console.log(`\nRegenerated ${writePerformanceDoc()}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
