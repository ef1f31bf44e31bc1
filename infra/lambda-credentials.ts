import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The default credential chain in a function bundle, for the SDK's clients and for our DynamoDB
 * client when the environment holds no keys (shared/db/dynamo-http.ts): esbuild aliases
 * `@aws-sdk/credential-provider-node` to this file (infra/bundling.ts). Lambda always hands a function
 * its role's credentials in environment variables, so the rest of the chain (INI and process files,
 * SSO, web identity, container and instance metadata, and the STS and SSO clients they carry) can
 * never answer there; leaving it out takes about 135 KB out of every bundle.
 */
export const defaultProvider = fromEnv;
