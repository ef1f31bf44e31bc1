// Runs one esbuild build with the plugins below and prints its metafile as JSON on stdout.
// infra/bundling.ts runs this in a child process: plugins need esbuild's asynchronous API, while CDK
// bundles synchronously. Usage: node esbuild-build.mjs < options.json
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

/**
 * A contract file builds every zod schema of its resource at load, though a function uses one or two
 * endpoints' schemas. Marking each call in a contract's top-level declarations `@__PURE__` lets esbuild
 * drop the ones a function never reaches. The `response` schemas of the specs are dropped too: only
 * the OpenAPI document (generated at build time from the sources) reads them, never a function.
 */
export function prepareContract(text, file) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits = [];
  const marked = new Set();
  const visit = (node) => {
    // Calls inside a function run later, if ever: only what runs at load is marked.
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isCallExpression(node) && node.expression.getText(source) === 'defineEndpoint') {
      const [spec] = node.arguments;
      const response = spec && ts.isObjectLiteralExpression(spec) ? spec.properties.find((p) => p.name?.getText(source) === 'response') : undefined;
      if (response) edits.push({ start: response.getStart(source), end: response.end, text: 'response: undefined' });
    }
    // One mark covers a whole chain (`z.string().min(1)`): calls that start where another does are not marked again.
    const start = node.getStart(source);
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && !marked.has(start)) {
      marked.add(start);
      edits.push({ start, end: start, text: '/* @__PURE__ */ ' });
    }
    if (ts.isObjectLiteralExpression(node) && node.properties.some(ts.isSpreadAssignment)) edits.push(...spreadToAssign(node, source));
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) if (ts.isVariableStatement(statement)) visit(statement);
  const removed = edits.filter((edit) => edit.end > edit.start);
  const kept = edits.filter((edit) => edit.end > edit.start || !removed.some((r) => edit.start >= r.start && edit.start < r.end));
  let out = text;
  for (const edit of kept.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/**
 * `{ ...a, b: x }` becomes `Object.assign({}, a, { b: x })`, marked pure: esbuild keeps any object
 * literal with a spread (a spread could run a getter), so without this, one shared group of fields
 * spread into a schema would keep the schema, used or not. The same properties in the same order.
 */
function spreadToAssign(object, source) {
  const start = object.getStart(source);
  const edits = [
    { start, end: start + 1, text: '/* @__PURE__ */ Object.assign({}, ' },
    { start: object.end - 1, end: object.end, text: ')' },
  ];
  let run;
  const closeRun = () => run && edits.push({ start: run.end, end: run.end, text: ' }' });
  for (const property of object.properties) {
    if (ts.isSpreadAssignment(property)) {
      closeRun();
      run = undefined;
      const spread = property.getStart(source);
      edits.push({ start: spread, end: spread + 3, text: '' });
    } else {
      if (!run) edits.push({ start: property.getStart(source), end: property.getStart(source), text: '{ ' });
      run = property;
    }
  }
  closeRun();
  return edits;
}

const contracts = {
  name: 'contracts',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[/\\]shared[/\\]contracts[/\\][^/\\]+\.ts$/ }, ({ path }) => ({
      contents: prepareContract(readFileSync(path, 'utf8'), path),
      loader: 'ts',
    }));
  },
};

/**
 * Packages a function imports on first use only, by the file of its own next to the bundle that
 * infra/bundling.ts writes for each (as it names them). Inlined in the bundle, every cold start would
 * compile them: the form parser (qs with the packages it needs, about 55 KB), imported on a
 * function's first form body; Ajv (about 120 KB), imported on the first feature with a JSON schema.
 */
const apartFiles = { qs: 'qs.mjs', ajv: 'ajv.mjs' };
const packagesApart = {
  name: 'packages-apart',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^(qs|ajv)$/ }, ({ path, kind }) => (kind === 'dynamic-import' ? { path: `./${apartFiles[path]}`, external: true } : undefined));
  },
};

/**
 * Names each source of a written source map by its path in the repository (`shared/api/endpoint.ts`)
 * rather than relative to the build's output folder, which spelled out the build machine's folders.
 */
function repositorySources(mapFile, root) {
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  map.sources = map.sources.map((source) => relative(root, resolve(dirname(mapFile), source)));
  writeFileSync(mapFile, JSON.stringify(map));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = JSON.parse(readFileSync(0, 'utf8'));
  const { metafile } = await build({ ...options, plugins: [contracts, packagesApart] });
  const root = options.absWorkingDir ?? process.cwd();
  for (const output of Object.keys(metafile.outputs)) if (output.endsWith('.map')) repositorySources(resolve(root, output), root);
  process.stdout.write(JSON.stringify(metafile));
}
