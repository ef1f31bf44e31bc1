import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { screenshotTypeOf } from '../domain/screenshots';

/**
 * Where variation screenshots' bytes live: the bucket named by `SCREENSHOT_BUCKET` in AWS (the CDK stack
 * sets it on the functions that may touch it), else a folder on this machine, as `npm start` and the
 * tests run (`SCREENSHOTS_DIR`, default `.data/screenshots`). Keys begin with the organization's id, and
 * only the use cases build them, from the caller's organization: no request names a key.
 */

/** The bytes of one stored screenshot and its content type. */
export interface ScreenshotObject {
  bytes: Buffer;
  contentType: string;
}

const bucket = () => process.env.SCREENSHOT_BUCKET;

/** The folder local screenshots are written under: `SCREENSHOTS_DIR`, default `.data/screenshots`. */
export const screenshotsDir = () => path.resolve(process.env.SCREENSHOTS_DIR || '.data/screenshots');

let client: S3Client | undefined;
/** The S3 client, loaded on first use: the three screenshot functions alone carry it, and only their S3 path runs it. */
async function s3() {
  const sdk = await import('@aws-sdk/client-s3');
  client ??= new sdk.S3Client({});
  return { client, sdk };
}

/** A key segment: URI-encoded, and `.` or `..` (a variation id may be either) spelt out, so no segment names a folder above it. */
const segment = (value: string) => encodeURIComponent(value).replace(/^\.\.?$/, (dots) => dots.replaceAll('.', '%2E'));

/** The object key of a screenshot: organization first, then experiment, variation and file name. */
export function screenshotKey(orgId: string, experimentId: string, variationId: string, file: string): string {
  return [orgId, experimentId, variationId, file].map(segment).join('/');
}

/** The local file of a key: its segments are encoded, so none can climb out of the folder. */
const localFile = (key: string) => path.join(screenshotsDir(), ...key.split('/'));


/** Writes a screenshot's bytes under `key`. */
export async function putScreenshotObject(key: string, object: ScreenshotObject): Promise<void> {
  const name = bucket();
  if (name) {
    const { client, sdk } = await s3();
    await client.send(new sdk.PutObjectCommand({ Bucket: name, Key: key, Body: object.bytes, ContentType: object.contentType }));
    return;
  }
  const file = localFile(key);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, object.bytes);
}

/** The screenshot stored under `key`, or undefined when there is none. */
export async function getScreenshotObject(key: string): Promise<ScreenshotObject | undefined> {
  const name = bucket();
  if (name) {
    const { client, sdk } = await s3();
    try {
      const found = await client.send(new sdk.GetObjectCommand({ Bucket: name, Key: key }));
      return { bytes: Buffer.from(await found.Body!.transformToByteArray()), contentType: found.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }
  const file = localFile(key);
  try {
    // A local file records its content type only in its extension.
    return { bytes: await readFile(file), contentType: screenshotTypeOf(file) ?? 'application/octet-stream' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes the screenshot stored under `key`; removing one that is gone succeeds, as S3's DeleteObject does. */
export async function deleteScreenshotObject(key: string): Promise<void> {
  const name = bucket();
  if (name) {
    const { client, sdk } = await s3();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: name, Key: key }));
    return;
  }
  await rm(localFile(key), { force: true });
}
