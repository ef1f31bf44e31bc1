import { createCipheriv, randomBytes } from 'node:crypto';
import type { SdkAutoExperiment, SdkPayload } from './types';

/**
 * A part of the payload (`features`, `savedGroups`) encrypted as GrowthBook SDKs decrypt it with
 * `decryptionKey`: AES-128-CBC under the connection's base64 key, sent as `<base64 iv>.<base64 ciphertext>`.
 */
function encryptFeatures(features: SdkPayload['features'] | SdkPayload['savedGroups'] | SdkAutoExperiment[], encryptionKey: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', Buffer.from(encryptionKey, 'base64'), iv);
  const encrypted = Buffer.concat([cipher.update(JSON.stringify(features), 'utf8'), cipher.final()]);
  return `${iv.toString('base64')}.${encrypted.toString('base64')}`;
}

/**
 * The body an encrypting connection is sent: `features` (and `experiments`, `savedGroups` when
 * present) encrypted, as GrowthBook sends it.
 */
export function encryptPayload(payload: SdkPayload, encryptionKey: string) {
  return {
    status: 200,
    features: {},
    encryptedFeatures: encryptFeatures(payload.features, encryptionKey),
    // As GrowthBook: an encrypted payload's experiments go out encrypted too, behind an empty list.
    ...(payload.experiments ? { experiments: [], encryptedExperiments: encryptFeatures(payload.experiments, encryptionKey) } : {}),
    dateUpdated: payload.dateUpdated,
    ...(payload.savedGroups ? { encryptedSavedGroups: encryptFeatures(payload.savedGroups, encryptionKey) } : {}),
  };
}
