import { endpoint } from '../../shared/api/endpoint';
import { deleteUrlRedirect } from '../../shared/contracts/url-redirects';
import { assertCan } from '../../shared/permissions';
import { touchSdkPayloads } from '../../shared/store/sdk-payloads';
import { removeUrlRedirect } from '../../shared/store/url-redirects';

export const handler = endpoint(deleteUrlRedirect, async ({ params, auth }) => {
  await removeUrlRedirect(auth.orgId, params.id, (experiment) => {
    assertCan(auth, deleteUrlRedirect.permission, experiment?.project ? [experiment.project] : []);
  });
  await touchSdkPayloads(auth.orgId);
  return { deletedId: params.id };
});
