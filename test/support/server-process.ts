import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../infra/local/dynamodb';

/**
 * A second local server in a process of its own, on the same DynamoDB Local and table: another
 * warm container, with caches this test process cannot see.
 */
export async function startServerProcess(): Promise<{ baseUrl: string; close(): void }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'bench', 'serve.ts'), 'local'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => child.kill() };
}
