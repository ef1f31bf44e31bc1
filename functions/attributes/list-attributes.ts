import { endpoint } from '../../shared/api/endpoint';
import { listAttributes } from '../../shared/contracts/attributes';
import { attributes, toAttribute } from '../../shared/store/attributes';

export const handler = endpoint(listAttributes, async ({ auth }) => ({
  attributes: (await attributes.all(auth.orgId)).map(toAttribute),
}));
