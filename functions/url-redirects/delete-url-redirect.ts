import { endpoint } from '../../shared/api/endpoint';
import { deleteUrlRedirect } from '../../shared/contracts/url-redirects';
import { assertCan } from '../../shared/permissions';
import { removeUrlRedirect } from '../../shared/store/url-redirects';

export const handler = endpoint(deleteUrlRedirect, async ({ params, auth }) => {
  await removeUrlRedirect(auth.orgId, params.id, (experiment) => {
    assertCan(auth, deleteUrlRedirect.permission, experiment?.project ? [experiment.project] : []);
  });
  return { deletedId: params.id };
});
