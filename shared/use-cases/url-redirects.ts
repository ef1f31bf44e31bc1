import * as contract from '../contracts/url-redirects';
import { startEarly } from '../concurrency';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { assertDestinations, assertNoRedirectLoop } from '../domain/url-redirects';
import { newId } from '../ids';
import { assertCan } from '../permissions';
import { addUrlRedirect, changeUrlRedirect, removeUrlRedirect, servedRedirects, urlRedirects } from '../store/url-redirects';
import { readableByExperiment, readableOfExperimentOr404 } from './read-access';

/** `POST /url-redirects`: create a URL redirect for an experiment. */
export async function createUrlRedirect({
  body,
  auth,
}: UseCaseInput<typeof contract.createUrlRedirect>): UseCaseOutput<typeof contract.createUrlRedirect> {
  const others = await servedRedirects(auth.orgId);
  const urlRedirect = await addUrlRedirect(auth.orgId, body.experiment, (experiment) => {
    assertCan(auth, contract.createUrlRedirect.permission, experiment.project ? [experiment.project] : []);
    const redirect = {
      id: newId('url_'),
      experiment: experiment.id,
      urlPattern: body.urlPattern,
      destinationURLs: body.destinationURLs,
      persistQueryString: body.persistQueryString ?? false,
    };
    assertDestinations(
      redirect,
      experiment.variations.map((variation) => variation.variationId),
    );
    assertNoRedirectLoop(redirect, others);
    return redirect;
  });
  return { urlRedirect };
}

/** `DELETE /url-redirects/{id}`: delete a URL redirect. */
export async function deleteUrlRedirect({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteUrlRedirect>): UseCaseOutput<typeof contract.deleteUrlRedirect> {
  await removeUrlRedirect(auth.orgId, params.id, (experiment) => {
    assertCan(auth, contract.deleteUrlRedirect.permission, experiment?.project ? [experiment.project] : []);
  });
  return { deletedId: params.id };
}

/** `GET /url-redirects/{id}`: get a URL redirect. */
export async function getUrlRedirect({ params, auth }: UseCaseInput<typeof contract.getUrlRedirect>): UseCaseOutput<typeof contract.getUrlRedirect> {
  const redirect = await urlRedirects.get(auth.orgId, params.id);
  return { urlRedirect: await readableOfExperimentOr404(auth, redirect, redirect.experiment, 'URL redirect', params.id) };
}

/** `GET /url-redirects`: list URL redirects. */
export async function listUrlRedirects({
  query,
  auth,
}: UseCaseInput<typeof contract.listUrlRedirects>): UseCaseOutput<typeof contract.listUrlRedirects> {
  // One consistent Query of the organization's redirects: a redirect just created is listed.
  const all = await urlRedirects.all(auth.orgId);
  const asked = query.experimentId ? all.filter((redirect) => redirect.experiment === query.experimentId) : all;
  return { urlRedirects: await readableByExperiment(auth, asked, (redirect) => redirect.experiment) };
}

/** `PUT /url-redirects/{id}`: update a URL redirect. */
export async function updateUrlRedirect({
  params,
  body,
  auth,
}: UseCaseInput<typeof contract.updateUrlRedirect>): UseCaseOutput<typeof contract.updateUrlRedirect> {
  // Only a new pattern or destination can make a loop; the other redirects are read alongside this one.
  const loopCheck = body.urlPattern !== undefined || body.destinationURLs !== undefined;
  const others = loopCheck ? startEarly(servedRedirects(auth.orgId, params.id)) : undefined;
  const urlRedirect = await changeUrlRedirect(auth.orgId, params.id, async (current, experiment) => {
    assertCan(auth, contract.updateUrlRedirect.permission, experiment.project ? [experiment.project] : []);
    const next = { ...current, ...body };
    if (body.destinationURLs)
      assertDestinations(
        next,
        experiment.variations.map((variation) => variation.variationId),
      );
    if (others) assertNoRedirectLoop(next, await others);
    return next;
  });
  return { urlRedirect };
}
