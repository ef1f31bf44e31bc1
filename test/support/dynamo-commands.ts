import { watchCommands } from '../../shared/db/client';

/** One DynamoDB command as sent: its name and input. */
export interface SentCommand {
  name: string;
  input: Record<string, unknown>;
}

/**
 * The DynamoDB commands sent while `action` runs, in the order sent, with their inputs (the local
 * server runs in the test's process, so its requests count too). Run one at a time: every command
 * of the process counts.
 */
export async function commandInputsDuring(action: () => Promise<unknown>): Promise<SentCommand[]> {
  const sent: SentCommand[] = [];
  const stop = watchCommands((name, input) => {
    sent.push({ name, input });
  });
  try {
    await action();
  } finally {
    stop();
  }
  return sent;
}

/** The names of the DynamoDB commands sent while `action` runs, in the order sent. */
export async function commandsDuring(action: () => Promise<unknown>): Promise<string[]> {
  return (await commandInputsDuring(action)).map((command) => command.name);
}
