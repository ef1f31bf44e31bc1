import { endpoint } from '../../shared/api/endpoint';
import { postReleasePublishRevisions } from '../../shared/contracts/releases';
import * as releases from '../../shared/use-cases/releases';

export const handler = endpoint(postReleasePublishRevisions, releases.postReleasePublishRevisions);
