import { docsAssetResponse } from '../../shared/api/docs-assets';
import { endpoint } from '../../shared/api/endpoint';
import { getApiDocsAsset } from '../../shared/contracts/system';

export const handler = endpoint(getApiDocsAsset, async ({ params, event }) => docsAssetResponse(params.asset, event.headers?.['accept-encoding']));
