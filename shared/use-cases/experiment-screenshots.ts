import * as contract from '../contracts/experiment-screenshots';
import type { Experiment } from '../contracts/experiments';
import { fullPath, type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { decodeScreenshot } from '../domain/screenshots';
import { InvalidInputError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { logger } from '../logger';
import { assertCan, type Principal } from '../permissions';
import { changeExperiment } from '../store/experiment-schedule';
import { experiments } from '../store/experiments';
import { deleteScreenshotObject, getScreenshotObject, putScreenshotObject, screenshotKey, type ScreenshotObject } from '../store/screenshot-objects';
import { projectOf, readableOr404 } from './read-access';

// The image is written before the experiment lists it and unlisted before it is removed, so a listed
// screenshot always has its image; a failure in between leaves at worst an image no experiment lists,
// which no route serves (the image route serves only listed paths).

/** The path an experiment lists for a screenshot: the image route's, which serves the image to callers of the experiment's organization. */
const screenshotPath = (experimentId: string, variationId: string, file: string) =>
  fullPath(contract.getVariationScreenshot)
    .replace('{id}', encodeURIComponent(experimentId))
    .replace('{variationId}', encodeURIComponent(variationId))
    .replace('{file}', encodeURIComponent(file));

/** A listed path compared without origin or query: a client may send back an absolute URL of it, as GrowthBook's strips a signed URL's query. */
function normalizedPath(path: string): string {
  const withoutQuery = path.split(/[?#]/)[0];
  try {
    return new URL(withoutQuery).pathname;
  } catch {
    return withoutQuery;
  }
}

/** The variation, else 400 with GrowthBook's wording. */
function variationOf(experiment: Experiment, variationId: string) {
  const variation = experiment.variations.find((v) => v.variationId === variationId);
  if (!variation) throw new InvalidInputError(`Unknown variation ${variationId}`);
  return variation;
}

/** The experiment, when the caller may read it and change it (GrowthBook's canUpdateExperiment); else 404 or 403. */
function assertMayChange(auth: Principal, experiment: Experiment, permission: typeof contract.postVariationImageUpload.permission): Experiment {
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', experiment.id);
  assertCan(auth, permission, projectOf(experiment));
  return experiment;
}

/** `POST /experiments/{id}/variation/{variationId}/screenshot/upload`: store an image and list it on the variation. */
export async function postVariationImageUpload({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.postVariationImageUpload>): UseCaseOutput<typeof contract.postVariationImageUpload> {
  const permission = contract.postVariationImageUpload.permission;
  const bytes = decodeScreenshot(body.screenshot, body.contentType);
  variationOf(assertMayChange(auth, await experiments.get(auth.orgId, params.id), permission), params.variationId);
  const file = `${newId('img_')}.${contract.screenshotTypes[body.contentType]}`;
  const key = screenshotKey(auth.orgId, params.id, params.variationId, file);
  const path = screenshotPath(params.id, params.variationId, file);
  await putScreenshotObject(key, { bytes, contentType: body.contentType });
  try {
    await changeExperiment(auth.orgId, params.id, (current) => {
      assertMayChange(auth, current, permission);
      const variation = variationOf(current, params.variationId);
      return {
        ...current,
        variations: current.variations.map((v) => (v === variation ? { ...v, screenshots: [...v.screenshots, path] } : v)),
      };
    });
  } catch (error) {
    // Not listed: the image goes too (if this fails as well, it is an image nothing lists or serves).
    await deleteScreenshotObject(key).catch((cleanup) => logger.warn('An unlisted screenshot could not be removed', { key, error: cleanup }));
    throw error;
  }
  return { screenshot: { path, description: body.description ?? '' } };
}

/** `DELETE /experiments/{id}/variation/{variationId}/screenshot`: unlist a screenshot, then remove its image. */
export async function deleteVariationScreenshot({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.deleteVariationScreenshot>): UseCaseOutput<typeof contract.deleteVariationScreenshot> {
  const permission = contract.deleteVariationScreenshot.permission;
  const wanted = normalizedPath(body.path);
  await changeExperiment(auth.orgId, params.id, (current) => {
    assertMayChange(auth, current, permission);
    const variation = variationOf(current, params.variationId);
    const kept = variation.screenshots.filter((listed) => normalizedPath(listed) !== wanted);
    if (kept.length === variation.screenshots.length) throw new NotFoundError(`Screenshot ${body.path} not found on variation ${params.variationId}`);
    return { ...current, variations: current.variations.map((v) => (v === variation ? { ...v, screenshots: kept } : v)) };
  });
  // A listed path may be any URL a client set (POST /experiments/{id} takes them); only this route's own have an image here.
  const prefix = screenshotPath(params.id, params.variationId, '');
  const file = wanted.startsWith(prefix) ? decodeURIComponent(wanted.slice(prefix.length)) : undefined;
  if (file && !file.includes('/')) await deleteScreenshotObject(screenshotKey(auth.orgId, params.id, params.variationId, file));
  return {};
}

/** `GET /experiments/{id}/variation/{variationId}/screenshot/{file}`: the image of a screenshot the variation lists. */
export async function getVariationScreenshot({ params, auth }: UseCaseInput<typeof contract.getVariationScreenshot>): Promise<ScreenshotObject> {
  const experiment = await experiments.get(auth.orgId, params.id);
  readableOr404(auth, experiment, projectOf(experiment), 'Experiment', params.id);
  const path = screenshotPath(params.id, params.variationId, params.file);
  const variation = experiment.variations.find((v) => v.variationId === params.variationId);
  const found =
    variation?.screenshots.some((listed) => normalizedPath(listed) === path) &&
    (await getScreenshotObject(screenshotKey(auth.orgId, params.id, params.variationId, params.file)));
  if (!found) throw new NotFoundError(`Screenshot ${params.file} not found on variation ${params.variationId}`);
  return found;
}
