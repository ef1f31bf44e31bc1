import { endpoint } from '../../shared/api/endpoint';
import { getCodeRefs } from '../../shared/contracts/code-refs';
import * as codeRefs from '../../shared/use-cases/code-refs';

export const handler = endpoint(getCodeRefs, codeRefs.getCodeRefs);
