import { version as rendererVersion } from 'swagger-ui-dist/package.json';
import { fullPath } from '../contracts/spec';
import { getApiDocs, getOpenApiDocument } from '../contracts/system';

/** One file of the API reference page: where it comes from in the repository, and how it is served. */
export interface DocsAsset {
  /** Path from the repository root. */
  source: string;
  contentType: string;
  cacheControl: string;
}

// The renderer's files are requested with its version in the query, so a release of it is a new URL: cached for good.
const versioned = 'public, max-age=31536000, immutable';

/**
 * The files the page loads, by the name it requests them under (`/api/v1/docs/<name>`). They are read as
 * files, never bundled: Swagger UI (1.7 MB of JS) is shipped next to the asset function's bundle only.
 */
export const docsAssets: Record<string, DocsAsset> = {
  'swagger-ui-bundle.js': { source: 'node_modules/swagger-ui-dist/swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8', cacheControl: versioned },
  'swagger-ui.css': { source: 'node_modules/swagger-ui-dist/swagger-ui.css', contentType: 'text/css; charset=utf-8', cacheControl: versioned },
  'favicon-32x32.png': { source: 'node_modules/swagger-ui-dist/favicon-32x32.png', contentType: 'image/png', cacheControl: versioned },
  // Ours, and it may change within a renderer version: cached for an hour only.
  'swagger-ui-init.js': { source: 'shared/api/swagger-ui-init.js', contentType: 'text/javascript; charset=utf-8', cacheControl: 'public, max-age=3600' },
};

// Under the page's own path, as getApiDocsAsset serves them (naming that spec here would bring its params schema into the page's function).
const asset = (name: keyof typeof docsAssets) => `${fullPath(getApiDocs)}/${name}?v=${rendererVersion}`;

/**
 * The page. Its URLs are absolute paths, so it works at `/api/v1/docs/` as well as at `/api/v1/docs`;
 * nothing comes from another origin.
 */
export const docsPageHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard API reference</title>
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui" data-url="${fullPath(getOpenApiDocument)}"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('swagger-ui-init.js')}"></script>
</body>
</html>
`;

/**
 * The page's headers. Its policy lets it load only from its own origin (so an injected script or style cannot
 * apply and "Try it out" reaches only this API); Swagger UI's style sheet draws its icons from data: URLs.
 */
export const docsPageHeaders = {
  'content-type': 'text/html; charset=utf-8',
  // Revalidated each time: the page names the renderer's version, which a deployment may change.
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};
