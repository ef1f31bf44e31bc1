import * as z from 'zod';

export const environment = z.object({
  id: z.string(),
  description: z.string(),
  toggleOnList: z.boolean(),
  defaultState: z.boolean(),
  projects: z.array(z.string()),
  parent: z.string().optional(),
});
export type Environment = z.infer<typeof environment>;

export const environmentEndpoints: import('./spec').EndpointSpec[] = [];
