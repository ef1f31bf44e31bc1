import * as z from './zod';
import { defineEndpoint } from './spec';

/** The image types GrowthBook takes as variation screenshots, with the file extension each is stored under. */
export const screenshotTypes = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif' } as const;
export type ScreenshotType = keyof typeof screenshotTypes;

// Variation screenshots: GrowthBook's postVariationImageUpload and deleteVariationScreenshot, and the route that
// serves the stored image (GrowthBook links its file store; the path an experiment lists here is this route).

const id = z.string().check(z.minLength(1), z.maxLength(256));
const variationParams = z.object({ id, variationId: id });

const screenshot = z.object({ path: z.string(), description: z.string() });

export const postVariationImageUpload = defineEndpoint({
  operationId: 'postVariationImageUpload',
  method: 'POST',
  path: '/experiments/{id}/variation/{variationId}/screenshot/upload',
  summary: 'Upload a variation screenshot',
  tag: 'experiments',
  permission: 'createAnalyses',
  projectScoped: true,
  // Lambda's own request limit: the 2 MB every other route takes would refuse screenshots GrowthBook takes.
  maxBodyBytes: 6 * 1024 * 1024,
  params: variationParams,
  body: z.strictObject({
    screenshot: z.string(),
    contentType: z.enum(Object.keys(screenshotTypes) as [ScreenshotType, ...ScreenshotType[]]),
    description: z.optional(z.string().check(z.maxLength(10_000))),
  }),
  response: z.object({ screenshot }),
});

export const deleteVariationScreenshot = defineEndpoint({
  operationId: 'deleteVariationScreenshot',
  method: 'DELETE',
  path: '/experiments/{id}/variation/{variationId}/screenshot',
  summary: 'Delete a variation screenshot',
  tag: 'experiments',
  permission: 'createAnalyses',
  projectScoped: true,
  params: variationParams,
  body: z.strictObject({ path: z.string().check(z.minLength(1), z.maxLength(2048)) }),
  response: z.object({}),
});

export const getVariationScreenshot = defineEndpoint({
  operationId: 'getVariationScreenshot',
  method: 'GET',
  path: '/experiments/{id}/variation/{variationId}/screenshot/{file}',
  summary: "A variation screenshot's image, at the path the experiment lists",
  tag: 'experiments',
  permission: 'read',
  projectScoped: true,
  params: z.object({ id, variationId: id, file: id }),
  response: z.string(),
});

export const experimentScreenshotEndpoints = [postVariationImageUpload, deleteVariationScreenshot, getVariationScreenshot];
