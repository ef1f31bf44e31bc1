/**
 * zod as every schema here uses it: zod/mini, whose functions (`z.optional(x)`, `x.check(z.maxLength(n))`)
 * cost a function a fraction of what the classic API's methods cost at cold start. mini carries no
 * messages of its own, so the English ones, which the classic API loads, are set here, once.
 * Import it as `import * as z from './zod'`.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
