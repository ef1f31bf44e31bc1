import { db } from '../../shared/store/client';

/**
 * The names of the DynamoDB commands sent while `action` runs, in the order sent (the local server
 * runs in the test's process, so its requests count too). Run one at a time: every command of the
 * process counts.
 */
export async function commandsDuring(action: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const name = `count-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName as string);
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await action();
  } finally {
    db().middlewareStack.remove(name);
  }
  return sent;
}
