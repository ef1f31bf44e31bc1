import { endpoint } from '../../shared/api/endpoint';
import { listVisualChangesets } from '../../shared/contracts/visual-changesets';
import * as visualChangesets from '../../shared/use-cases/visual-changesets';

export const handler = endpoint(listVisualChangesets, visualChangesets.listVisualChangesets);
