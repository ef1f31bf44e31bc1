import { endpoint } from '../../shared/api/endpoint';
import { EncodedResponse } from '../../shared/api/responses';
import { getVariationScreenshot } from '../../shared/contracts/experiment-screenshots';
import * as screenshots from '../../shared/use-cases/experiment-screenshots';

export const handler = endpoint(getVariationScreenshot, async (request) => {
  const { bytes, contentType } = await screenshots.getVariationScreenshot(request);
  return new EncodedResponse(
    200,
    bytes.toString('base64'),
    {
      'content-type': contentType,
      // Read with the caller's key: private caches only. nosniff and no active content: an image is never run as a page.
      'cache-control': 'private, max-age=300',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    },
    true,
  );
});
