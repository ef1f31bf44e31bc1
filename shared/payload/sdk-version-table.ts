/**
 * Which GrowthBook SDK versions exist per connection language, and which capabilities each version
 * adds (a version has every capability of the versions below it). Written from GrowthBook's own
 * tables, `packages/shared/src/sdk-versioning/sdk-versions/*.json` of growthbook/growthbook, read at:
 * javascript 9116ca6, nodejs 911cf7f, react / edge-fastly / edge-other 7166f00, nextjs 1c3ed82,
 * nocode ee3d503, other 0991991, php b193206, python / csharp dcc631d, ruby 7c963a6, java 3d367ba,
 * kotlin (android) / roku def9380, swift (ios) 5e36bd6, go / elixir edb76c8, flutter 279acae,
 * edge-cloudflare 509adca, edge-lambda c8ddee1, rust 354c603; the language list and the default
 * versions from `packages/shared/src/constants.ts` and `sdk-versioning/index.ts` (cc3c890).
 * Two additions, each marked: nodejs 1.6.3 and ruby 1.3.0 from GrowthBook's generated
 * `CAPABILITIES.md` (a4e4096), which is newer than those two JSON files; and javascript / nodejs
 * releases published on npm after those files (1.6.4 to 1.8.0), with no capability recorded for them.
 * GrowthBook's spellings are kept as they are, typos included (java and csharp list `remoteEvaluation`,
 * which is not the `remoteEval` capability GrowthBook checks; java's `v0.10.0`), so answers match GrowthBook's.
 */

export type SdkCapability =
  | 'looseUnmarshalling'
  | 'encryption'
  | 'streaming'
  | 'bucketingV2'
  | 'visualEditor'
  | 'semverTargeting'
  | 'visualEditorJS'
  | 'remoteEval'
  | 'visualEditorDragDrop'
  | 'stickyBucketing'
  | 'redirects'
  | 'prerequisites'
  | 'savedGroupReferences'
  | 'caseInsensitiveRegex'
  | 'caseInsensitiveMembership'
  | 'namespacesV2'
  | 'contextualBandits';

export interface SdkVersionRow {
  version: string;
  capabilities?: string[];
}

/** Newest first, as in GrowthBook's files. */
type Table = SdkVersionRow[];

/** Versions without capabilities of their own, newest first. */
const plain = (...versions: string[]): Table => versions.map((version) => ({ version }));

/** What every edge worker's first versioned release could do. */
const EDGE_FIRST = [
  'looseUnmarshalling',
  'encryption',
  'streaming',
  'bucketingV2',
  'visualEditor',
  'semverTargeting',
  'visualEditorJS',
  'visualEditorDragDrop',
  'prerequisites',
  'redirects',
  'stickyBucketing',
];

const nocode: Table = [
  {
    version: '0.0.0',
    capabilities: [...EDGE_FIRST, 'remoteEval', 'savedGroupReferences', 'caseInsensitiveRegex', 'caseInsensitiveMembership'],
  },
];

/** The `@growthbook/growthbook` package's history below 1.0.0, shared by javascript and nodejs apart from the visual editor. */
const jsBefore1 = (browser: boolean): Table => [
  { version: '0.36.0', capabilities: ['redirects'] },
  ...plain('0.35.0'),
  { version: '0.34.0', capabilities: ['prerequisites'] },
  ...plain('0.33.0'),
  { version: '0.32.0', capabilities: ['stickyBucketing'] },
  ...plain('0.31.0'),
  ...(browser
    ? [
        { version: '0.30.0', capabilities: ['visualEditorDragDrop'] },
        { version: '0.29.0', capabilities: ['remoteEval'] },
        { version: '0.27.0', capabilities: ['semverTargeting', 'visualEditorJS'] },
        { version: '0.24.0', capabilities: ['visualEditor'] },
      ]
    : [{ version: '0.27.0', capabilities: ['semverTargeting'] }]),
  { version: '0.23.0', capabilities: ['bucketingV2'] },
  { version: '0.21.0', capabilities: ['streaming'] },
  { version: '0.20.0', capabilities: ['encryption'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const js1 = (): Table => [
  ...plain('1.6.2', '1.6.1', '1.6.0', '1.5.1', '1.5.0', '1.4.1', '1.4.0', '1.3.1', '1.3.0', '1.2.1', '1.2.0'),
  { version: '1.1.0', capabilities: ['savedGroupReferences'] },
  ...plain('1.0.1', '1.0.0'),
];

/** Published on npm after GrowthBook's javascript.json snapshot; no capability is recorded for them. */
const JS_NPM_LATER = plain('1.8.0', '1.7.0', '1.6.5');

const javascript: Table = [
  ...JS_NPM_LATER,
  { version: '1.6.4', capabilities: ['caseInsensitiveMembership'] },
  { version: '1.6.3', capabilities: ['caseInsensitiveRegex'] },
  ...js1(),
  ...jsBefore1(true),
];

const nodejs: Table = [
  ...JS_NPM_LATER,
  ...plain('1.6.4'),
  // From CAPABILITIES.md: nodejs 1.6.3 adds caseInsensitiveRegex.
  { version: '1.6.3', capabilities: ['caseInsensitiveRegex'] },
  ...js1(),
  ...jsBefore1(false),
];

const react: Table = [
  ...plain('1.6.5'),
  { version: '1.6.4', capabilities: ['caseInsensitiveMembership'] },
  { version: '1.6.3', capabilities: ['caseInsensitiveRegex'] },
  ...plain('1.6.2', '1.6.1', '1.6.0', '1.5.1', '1.5.0', '1.4.1', '1.4.0', '1.3.1', '1.3.0', '1.2.1', '1.2.0'),
  { version: '1.1.0', capabilities: ['savedGroupReferences'] },
  ...plain('1.0.1', '1.0.0'),
  { version: '0.26.0', capabilities: ['redirects'] },
  ...plain('0.25.0'),
  { version: '0.24.0', capabilities: ['prerequisites'] },
  ...plain('0.23.0'),
  { version: '0.22.0', capabilities: ['stickyBucketing'] },
  ...plain('0.21.0'),
  { version: '0.20.0', capabilities: ['visualEditorDragDrop'] },
  { version: '0.19.0', capabilities: ['remoteEval'] },
  { version: '0.17.0', capabilities: ['semverTargeting', 'visualEditorJS'] },
  { version: '0.14.0', capabilities: ['visualEditor'] },
  { version: '0.13.0', capabilities: ['bucketingV2'] },
  { version: '0.11.0', capabilities: ['streaming'] },
  { version: '0.10.1', capabilities: ['encryption'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const nextjs: Table = [
  {
    version: '0.1.0',
    capabilities: [
      'savedGroupReferences',
      'redirects',
      'prerequisites',
      'stickyBucketing',
      'semverTargeting',
      'bucketingV2',
      'encryption',
      'looseUnmarshalling',
    ],
  },
];

const php: Table = [
  { version: '1.7.0', capabilities: ['savedGroupReferences'] },
  { version: '1.6.0', capabilities: ['prerequisites', 'stickyBucketing'] },
  { version: '1.5.0', capabilities: ['semverTargeting'] },
  ...plain('1.4.0', '1.3.0'),
  { version: '1.2.0', capabilities: ['bucketingV2', 'encryption'] },
  { version: '1.0.0', capabilities: ['looseUnmarshalling'] },
];

const python: Table = [
  ...plain('1.4.5', '1.4.2', '1.3.1'),
  { version: '1.2.1', capabilities: ['savedGroupReferences'] },
  { version: '1.1.0', capabilities: ['looseUnmarshalling', 'prerequisites', 'stickyBucketing', 'semverTargeting'] },
  { version: '1.0.0', capabilities: ['bucketingV2', 'encryption'] },
];

const ruby: Table = [
  // From CAPABILITIES.md: ruby 1.3.0 adds prerequisites and sticky bucketing.
  { version: '1.3.0', capabilities: ['prerequisites', 'stickyBucketing'] },
  { version: '1.2.2', capabilities: ['semverTargeting'] },
  { version: '1.1.0', capabilities: ['encryption'] },
  { version: '1.0.0', capabilities: ['bucketingV2'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const java: Table = [
  { version: '0.10.6', capabilities: ['caseInsensitiveRegex'] },
  ...plain('0.10.2', '0.10.1', 'v0.10.0', '0.9.96', '0.9.95', '0.9.94', '0.9.93'),
  { version: '0.9.92', capabilities: ['remoteEvaluation'] },
  ...plain('0.9.91', '0.9.7', '0.9.6', '0.9.5'),
  { version: '0.9.3', capabilities: ['prerequisites', 'stickyBucketing'] },
  ...plain('0.9.2', '0.9.1'),
  { version: '0.9.0', capabilities: ['streaming'] },
  { version: '0.7.0', capabilities: ['semverTargeting'] },
  { version: '0.6.0', capabilities: ['bucketingV2'] },
  { version: '0.3.0', capabilities: ['encryption'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const android: Table = [
  ...plain('6.1.1', '6.1.0', '5.0.1', '2.0.0', '1.1.60', '1.1.59', '1.1.58', '1.1.57', '1.1.56', '1.1.55', '1.1.54', '1.1.53', '1.1.51'),
  { version: '1.1.50', capabilities: ['remoteEval', 'streaming'] },
  { version: '1.1.44', capabilities: ['prerequisites', 'stickyBucketing'] },
  ...plain('1.1.43'),
  { version: '1.1.38', capabilities: ['bucketingV2'] },
  { version: '1.1.31', capabilities: ['semverTargeting'] },
  { version: '1.1.23', capabilities: ['encryption'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const ios: Table = [
  ...plain('1.0.93', '1.0.82', '1.0.73', '1.0.68', '1.0.67', '1.0.66', '1.0.65', '1.0.64', '1.0.63', '1.0.62'),
  ...plain('1.0.57', '1.0.56', '1.0.55', '1.0.54', '1.0.53', '1.0.51'),
  { version: '1.0.50', capabilities: ['remoteEval'] },
  { version: '1.0.49', capabilities: ['stickyBucketing', 'prerequisites'] },
  ...plain('1.0.48', '1.0.47', '1.0.44'),
  { version: '1.0.43', capabilities: ['bucketingV2', 'streaming'] },
  { version: '1.0.38', capabilities: ['semverTargeting'] },
  { version: '1.0.35', capabilities: ['encryption'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const go: Table = [
  ...plain('0.2.4'),
  { version: '0.2.3', capabilities: ['stickyBucketing'] },
  ...plain('0.2.2', '0.2.1'),
  { version: '0.2.0', capabilities: ['prerequisites', 'savedGroupReferences'] },
  ...plain('0.1.9', '0.1.8', '0.1.7', '0.1.6', '0.1.5'),
  { version: '0.1.4', capabilities: ['bucketingV2', 'streaming', 'semverTargeting', 'encryption'] },
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const flutter: Table = [
  ...plain('4.2.1', '4.1.0', '4.0.0', '3.9.11', '3.9.9', '3.9.8', '3.9.7', '3.9.6', '3.9.5', '3.9.3', '3.9.2', '3.9.1', '3.9.0'),
  { version: '3.8.0', capabilities: ['stickyBucketing'] },
  { version: '3.7.0', capabilities: ['remoteEval'] },
  ...plain('3.6.0', '3.5.0'),
  { version: '3.4.0', capabilities: ['streaming'] },
  ...plain('3.3.0'),
  { version: '3.2.0', capabilities: ['prerequisites'] },
  { version: '3.1.0', capabilities: ['encryption', 'bucketingV2', 'semverTargeting'] },
  ...plain('1.1.2'),
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const csharp: Table = [
  { version: '1.1.3', capabilities: ['remoteEvaluation'] },
  ...plain('1.1.2'),
  { version: '1.1.0', capabilities: ['stickyBucketing', 'prerequisites', 'savedGroupReferences'] },
  ...plain('1.0.6', '1.0.2'),
  { version: '1.0.0', capabilities: ['encryption', 'streaming', 'bucketingV2', 'semverTargeting'] },
  ...plain('0.2.0'),
  { version: '0.0.0', capabilities: ['looseUnmarshalling'] },
];

const elixir: Table = [
  { version: '0.3.0', capabilities: ['encryption'] },
  { version: '0.2.0', capabilities: ['prerequisites', 'semverTargeting', 'bucketingV2', 'looseUnmarshalling'] },
];

const edgeCloudflare: Table = [
  ...plain('0.2.6', '0.2.5', '0.2.4', '0.2.1', '0.2.0', '0.1.15', '0.1.13'),
  { version: '0.1.12', capabilities: ['savedGroupReferences'] },
  { version: '0.1.11', capabilities: EDGE_FIRST },
];

const edgeFastly: Table = [
  ...plain('0.2.8'),
  { version: '0.2.7', capabilities: ['caseInsensitiveRegex', 'caseInsensitiveMembership'] },
  ...plain('0.2.6', '0.2.5', '0.2.4', '0.2.2', '0.2.1', '0.1.8', '0.1.7'),
  { version: '0.1.6', capabilities: ['savedGroupReferences'] },
  { version: '0.1.5', capabilities: EDGE_FIRST },
];

const edgeLambda: Table = [
  ...plain('0.0.28'),
  { version: '0.0.27', capabilities: ['caseInsensitiveRegex', 'caseInsensitiveMembership'] },
  ...plain('0.0.26', '0.0.25', '0.0.24', '0.0.21', '0.0.20', '0.0.10', '0.0.8'),
  { version: '0.0.7', capabilities: ['savedGroupReferences'] },
  { version: '0.0.6', capabilities: EDGE_FIRST },
];

const edgeOther: Table = [
  ...plain('0.2.8'),
  { version: '0.2.7', capabilities: ['caseInsensitiveRegex', 'caseInsensitiveMembership'] },
  ...plain('0.2.6', '0.2.5', '0.2.4', '0.2.1', '0.1.7', '0.1.6'),
  { version: '0.1.5', capabilities: ['savedGroupReferences'] },
  { version: '0.1.4', capabilities: EDGE_FIRST },
];

const rust: Table = [{ version: '0.0.2', capabilities: ['encryption', 'looseUnmarshalling', 'prerequisites', 'semverTargeting', 'bucketingV2'] }];

const roku: Table = [...plain('1.3.1'), { version: '1.3.0', capabilities: ['prerequisites', 'looseUnmarshalling', 'semverTargeting', 'bucketingV2'] }];

const other: Table = [{ version: '0.0.0', capabilities: ['looseUnmarshalling'] }];

/** Every language an SDK connection may name, in GrowthBook's order, with its versions. */
export const SDK_VERSION_TABLE: Record<string, Table> = {
  'nocode-webflow': nocode,
  'nocode-wordpress': nocode,
  'nocode-shopify': nocode,
  'nocode-other': nocode,
  javascript,
  nodejs,
  nextjs,
  react,
  php,
  ruby,
  python,
  go,
  java,
  csharp,
  android,
  ios,
  flutter,
  elixir,
  'edge-cloudflare': edgeCloudflare,
  'edge-fastly': edgeFastly,
  'edge-lambda': edgeLambda,
  'edge-other': edgeOther,
  rust,
  roku,
  other,
};

/**
 * The version GrowthBook assumes for a connection that names none (connections made before it
 * stored versions): frozen by GrowthBook on 2023-12-05.
 */
export const DEFAULT_SDK_VERSIONS: Record<string, string> = {
  'nocode-other': '0.0.0',
  'nocode-webflow': '0.0.0',
  'nocode-shopify': '0.0.0',
  'nocode-wordpress': '0.0.0',
  javascript: '0.31.0',
  nodejs: '0.31.0',
  nextjs: '1.0.0',
  react: '0.21.0',
  php: '1.2.0',
  python: '1.0.0',
  ruby: '1.2.2',
  java: '0.9.0',
  android: '1.1.43',
  ios: '1.0.44',
  go: '0.1.4',
  flutter: '1.1.2',
  csharp: '0.2.0',
  elixir: '0.2.0',
  'edge-cloudflare': '0.1.10',
  'edge-fastly': '0.1.4',
  'edge-lambda': '0.0.5',
  'edge-other': '0.1.3',
  rust: '0.0.4',
  roku: '1.3.1',
  other: '0.0.0',
};
