/** An owner as stored: a member id with its e-mail, or the text given (a display name). */
export interface OwnerFields {
  owner: string;
  ownerEmail?: string;
}

/** `entity` with its owner replaced by `owner` (when given): a display name drops the old e-mail. */
export function withOwner<T extends { owner?: string; ownerEmail?: string }>(entity: T, owner: OwnerFields | undefined): T {
  if (!owner) return entity;
  const { ownerEmail: _previous, ...rest } = entity;
  return { ...rest, ...owner } as T;
}
