import { createHash } from 'node:crypto';
import { encryptPayload } from './encryption';
import type { SdkPayload } from './types';

/**
 * The body a connection is sent (the payload, encrypted when the connection asks) and its ETag.
 * The ETag hashes the clear content, so it changes exactly when the payload does, whatever the
 * random IV of an encryption.
 */
export function sdkPayloadBody(payload: SdkPayload, options: { encryptionKey?: string }): { body: unknown; etag: string } {
  const hash = createHash('sha256').update(JSON.stringify(payload)).update(options.encryptionKey ? 'encrypted' : 'clear');
  const etag = `"${hash.digest('base64url').slice(0, 32)}"`;
  return { body: options.encryptionKey ? encryptPayload(payload, options.encryptionKey) : payload, etag };
}
