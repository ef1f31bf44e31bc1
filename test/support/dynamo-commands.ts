import { watchCommands } from '../../shared/store/client';

/**
 * The names of the DynamoDB commands sent while `action` runs, in the order sent (the local server
 * runs in the test's process, so its requests count too). Run one at a time: every command of the
 * process counts.
 */
export async function commandsDuring(action: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const stop = watchCommands((command) => sent.push(command));
  try {
    await action();
  } finally {
    stop();
  }
  return sent;
}
