/**
 * A server for the load benchmark, in its own process: `local` is the API's local server (the
 * real handlers), `bare` answers every request with the bare handler's single GetItem.
 */
import { createServer } from 'node:http';
import { handler as bare } from './bare-handler';
import { startApiServer } from '../infra/local/server';

const port = Number(process.env.PORT);

// Exit cleanly when the bench stops the server, so `node --cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));

if (process.argv[2] === 'bare') {
  createServer(async (request, response) => {
    request.resume();
    // The same item the API's read scenario fetches, so both sides read the same bytes.
    const result = await bare({ pathParameters: { pk: process.env.BARE_PK, sk: process.env.BARE_SK } } as never);
    response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
    response.end(result.body);
  }).listen(port, '127.0.0.1', () => console.log('listening'));
} else {
  startApiServer({ port }).then(() => console.log('listening'));
}
