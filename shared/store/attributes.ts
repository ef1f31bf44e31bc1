import type { Attribute } from '../contracts/attributes';
import { prepareAttributeType } from './attribute-types';
import { prepareTouch } from '../payload/write';
import { repository, type Dated } from '../db/repository';

/** An attribute as stored: its property is its id, and it carries the store's dates, which its API shape leaves out. */
export type StoredAttribute = Attribute & Dated;

export const attributes = repository<StoredAttribute>({
  type: 'ATTRIBUTE',
  label: 'Attribute',
  // A datatype decides how list groups and secure values go out in SDK payloads.
  touch: (orgId, { id, after }) => [prepareTouch(orgId, id), prepareAttributeType(orgId, id, after?.datatype)],
});

/** The API shape of a stored attribute. */
export function toAttribute({ id: _id, dateCreated: _created, dateUpdated: _updated, ...attribute }: StoredAttribute): Attribute {
  return attribute;
}
