import * as contract from '../contracts/attributes';
import { type UseCaseInput, type UseCaseOutput } from '../contracts/spec';
import { withApplicableEnum } from '../domain/attributes';
import { assertCan } from '../permissions';
import { attributes, toAttribute } from '../store/attributes';
import { assertProjectsExist } from '../store/projects';
import { readableBy } from './read-access';

/** `DELETE /attributes/{property}`: delete a targeting attribute. */
export async function deleteAttribute({
  params,
  auth,
}: UseCaseInput<typeof contract.deleteAttribute>): UseCaseOutput<typeof contract.deleteAttribute> {
  await attributes.remove(auth.orgId, params.property, (attribute) => assertCan(auth, contract.deleteAttribute.permission, attribute.projects));
  return { deletedProperty: params.property };
}

/** `GET /attributes`: list targeting attributes. */
export async function listAttributes({ auth }: UseCaseInput<typeof contract.listAttributes>): UseCaseOutput<typeof contract.listAttributes> {
  return {
    // As GrowthBook's listAttributes: those the caller may read in one of their projects.
    attributes: readableBy(auth, await attributes.all(auth.orgId), (attribute) => attribute.projects ?? []).map(toAttribute),
  };
}

/** `POST /attributes`: create a targeting attribute. */
export async function postAttribute({ body, auth }: UseCaseInput<typeof contract.postAttribute>): UseCaseOutput<typeof contract.postAttribute> {
  assertCan(auth, contract.postAttribute.permission, body.projects);
  await assertProjectsExist(auth.orgId, body.projects);
  const created = await attributes.create(
    auth.orgId,
    withApplicableEnum({
      id: body.property,
      description: '',
      hashAttribute: false,
      archived: false,
      enum: '',
      format: '',
      projects: [],
      tags: [],
      ...body,
    }),
  );
  return { attribute: toAttribute(created) };
}

/** `PUT /attributes/{property}`: partially update a targeting attribute. */
export async function putAttribute({ params, body, auth }: UseCaseInput<typeof contract.putAttribute>): UseCaseOutput<typeof contract.putAttribute> {
  await assertProjectsExist(auth.orgId, body.projects);
  const updated = await attributes.update(auth.orgId, params.property, (current) => {
    assertCan(auth, contract.putAttribute.permission, current.projects);
    if (body.projects) assertCan(auth, contract.putAttribute.permission, body.projects);
    return withApplicableEnum({ ...current, ...body });
  });
  return { attribute: toAttribute(updated) };
}
