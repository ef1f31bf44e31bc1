import { screenshotTypes, type ScreenshotType } from '../contracts/experiment-screenshots';
import { InvalidInputError } from '../errors';

/**
 * The largest screenshot, decoded. Lambda takes at most 6 MB per request (API Gateway's 10 MB never reaches it);
 * 4 MiB is 5.6 MB in base64, which leaves the rest of the request (JSON, headers) room inside that.
 */
export const MAX_SCREENSHOT_BYTES = 4 * 1024 * 1024;

/** How each type's files begin: the bytes are checked against the declared type, so a page is never served as an image. */
const signatures: Record<ScreenshotType, Buffer[]> = {
  'image/png': [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  'image/jpeg': [Buffer.from([0xff, 0xd8, 0xff])],
  'image/gif': [Buffer.from('GIF87a'), Buffer.from('GIF89a')],
};

// One character class, not groups of four: a grouped pattern recurses per group and overflows the stack on megabytes.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const invalid = (problem: string) => new InvalidInputError(`Request body: [screenshot] ${problem}`);

/**
 * The image bytes of an upload: refuses (400) text that is not base64 (Node's decoder would skip what it cannot
 * read), an empty or oversized image, and bytes that are not an image of `contentType`.
 */
export function decodeScreenshot(base64: string, contentType: ScreenshotType): Buffer {
  const largestBase64 = Math.ceil(MAX_SCREENSHOT_BYTES / 3) * 4;
  const tooLarge = (bytes: number) => invalid(`is ${bytes} bytes; a screenshot may be at most ${MAX_SCREENSHOT_BYTES} bytes`);
  // Refused before decoding: the text alone says it is too large.
  if (base64.length > largestBase64) throw tooLarge(Math.floor((base64.length * 3) / 4));
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) {
    throw invalid('is not valid base64 (A-Z, a-z, 0-9, + and /, padded with = to a multiple of 4 characters)');
  }
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) throw invalid('is empty');
  if (bytes.length > MAX_SCREENSHOT_BYTES) throw tooLarge(bytes.length);
  if (!signatures[contentType].some((signature) => bytes.subarray(0, signature.length).equals(signature))) {
    throw invalid(`is not a ${screenshotTypes[contentType].toUpperCase()} image (contentType is ${contentType})`);
  }
  return bytes;
}

/** The content type a stored screenshot's file name says, from its extension. */
export function screenshotTypeOf(file: string): ScreenshotType | undefined {
  const extension = file.split('.').pop();
  return (Object.keys(screenshotTypes) as ScreenshotType[]).find((type) => screenshotTypes[type] === extension);
}
