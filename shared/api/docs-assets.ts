import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { NotFoundError } from '../errors';
import { docsAssets } from './docs-page';
import { chooseEncoding } from './encoding';
import { EncodedResponse } from './responses';

type Encoding = 'br' | 'gzip';

/**
 * Where the page's files are next to a bundle, and the suffix of each precompressed copy. infra/bundling.ts
 * writes them into every bundle that imports this module (only the asset function's), so the renderer is
 * read from a file on request and never parsed as part of a function's code.
 */
export const docsAssetFolder = 'docs';
export const encodedSuffix: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/** `bytes` compressed as the bundle ships them: as small as brotli and gzip make them (seconds, once, at build time), or quickly. */
export function compressDocsAsset(bytes: Buffer, encoding: Encoding, effort: 'max' | 'fast'): Buffer {
  if (encoding === 'gzip') return gzipSync(bytes, { level: effort === 'max' ? 9 : 6 });
  return brotliCompressSync(bytes, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: effort === 'max' ? zlib.BROTLI_MAX_QUALITY : 5, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
}

// Set by a process that runs handlers from source (the local server): the files are read from their
// sources in the repository there, and compressed on first demand.
let sourceRoot: string | undefined;
// Base64 bodies by name and encoding: each file is read once per container.
const bodies = new Map<string, string>();

function read(name: string, encoding: Encoding | undefined): Buffer {
  if (sourceRoot) {
    const bytes = readFileSync(join(sourceRoot, docsAssets[name].source));
    return encoding ? compressDocsAsset(bytes, encoding, 'fast') : bytes;
  }
  return readFileSync(join(process.env.LAMBDA_TASK_ROOT ?? '.', docsAssetFolder, name + (encoding ? encodedSuffix[encoding] : '')));
}

/**
 * One file of the reference page, compressed when the client accepts it, base64 as API Gateway takes
 * bodies from Lambda (1.7 MB of script is 0.4 MB in brotli, well within Lambda's 6 MB response). 404 for a name it does not have.
 */
export function docsAssetResponse(name: string, acceptEncoding: string | undefined): EncodedResponse {
  if (!Object.hasOwn(docsAssets, name)) throw new NotFoundError(`The API reference page has no file named ${name}`);
  const encoding = chooseEncoding(acceptEncoding);
  const key = `${name} ${encoding ?? 'identity'}`;
  let body = bodies.get(key);
  if (body === undefined) {
    body = read(name, encoding).toString('base64');
    bodies.set(key, body);
  }
  const { contentType, cacheControl } = docsAssets[name];
  const headers: Record<string, string> = { 'content-type': contentType, 'cache-control': cacheControl, vary: 'Accept-Encoding', 'x-content-type-options': 'nosniff' };
  if (encoding) headers['content-encoding'] = encoding;
  return new EncodedResponse(200, body, headers, true);
}

/** Reads the page's files from their sources under `root` (the repository), for a process that runs handlers from source. */
export function setDocsAssetSource(root: string): void {
  sourceRoot = root;
  bodies.clear();
}
