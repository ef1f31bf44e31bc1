import { endpoint } from '../../shared/api/endpoint';
import { deleteVariationScreenshot } from '../../shared/contracts/experiment-screenshots';
import * as screenshots from '../../shared/use-cases/experiment-screenshots';

export const handler = endpoint(deleteVariationScreenshot, screenshots.deleteVariationScreenshot);
