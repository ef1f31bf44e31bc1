import { endpoint } from '../../shared/api/endpoint';
import { postVisualChangesets } from '../../shared/contracts/visual-changesets';
import * as visualChangesets from '../../shared/use-cases/visual-changesets';

export const handler = endpoint(postVisualChangesets, visualChangesets.postVisualChangesets);
