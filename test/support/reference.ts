import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';

type Schema = Record<string, any>;

/** GrowthBook's reference documents, vendored under test/fixtures/reference (see its README for their source). */
export type ReferenceFile = 'growthbook-v1-openapi.yaml' | 'growthbook-v1-analysis.yaml' | 'growthbook-5.0.1-openapi.yaml';

/** One of GrowthBook's reference documents, parsed, from the copy inside the repository. */
export function referenceDocument(file: ReferenceFile): any {
  return parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'reference', file), 'utf8'));
}

/**
 * A validator of one schema of GrowthBook's reference document (`components.schemas.<name>`), from
 * the document itself. The document composes objects with `allOf` parts that each say
 * `additionalProperties: false`, which JSON Schema reads as "no property at all" for the other
 * parts' fields; each such `allOf` is merged into one object first, as the document means it.
 */
export function referenceSchemaValidator(name: string, file: ReferenceFile = 'growthbook-v1-openapi.yaml') {
  return compileReference(file, () => ({ $ref: `#/components/schemas/${name}` }));
}

/** A validator of the 200 answer of one operation of a reference document (`GET /v2/stale-features`, say), schemas merged as above. */
export function referenceResponseValidator(method: string, path: string, file: ReferenceFile = 'growthbook-5.0.1-openapi.yaml') {
  return compileReference(file, (document) => document.paths[path][method.toLowerCase()].responses['200'].content['application/json'].schema);
}

function compileReference(file: ReferenceFile, root: (document: any) => Schema) {
  const document = referenceDocument(file);
  const schemas = document.components.schemas as Record<string, Schema>;
  const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(schemas[schema.$ref.split('/').pop()!]!) : schema);
  const merge = (node: any): any => {
    if (Array.isArray(node)) return node.map(merge);
    if (!node || typeof node !== 'object') return node;
    const merged = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, merge(value)]));
    // Parts that are themselves compositions are merged first (GrowthBook 5's rules nest them).
    const parts = (merged.allOf as Schema[] | undefined)?.map((part) => (part.$ref ? merge(resolve(part)) : part));
    // `allOf: [anyOf: [A, B...], C]` means "one of A+C, B+C...": each choice is merged with the common part.
    const choice = parts?.find((part) => part.anyOf && !part.properties);
    if (parts?.length === 2 && choice) {
      const { allOf: _parts, ...rest } = merged;
      const common = parts.find((part) => part !== choice)!;
      return { ...rest, anyOf: (choice.anyOf as Schema[]).map((option) => merge({ allOf: [option, common] })) };
    }
    if (!parts || !parts.every((part) => part.type === 'object' && part.properties)) return merged;
    const { allOf: _parts, ...rest } = merged;
    return {
      ...rest,
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => merge(part.properties))),
      required: parts.flatMap((part) => part.required ?? []),
      additionalProperties: !parts.some((part) => part.additionalProperties === false),
    };
  };
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile({ ...merge(root(document)), components: { ...document.components, schemas: merge(schemas) } });
}

let rampScheduleValidator: ReturnType<typeof referenceSchemaValidator> | undefined;

/**
 * Throws unless every ramp schedule in an answer is GrowthBook 5.0.1's `RampSchedule` exactly as
 * answered: `rampSchedule`, each of `rampSchedules`, or the answer itself when it is one (PUT /lockdown).
 * Answers without a schedule (errors, deletes) pass. Returns how many schedules it checked.
 */
export function expectReferenceRampSchedules(body: any): number {
  rampScheduleValidator ??= referenceSchemaValidator('RampSchedule', 'growthbook-5.0.1-openapi.yaml');
  const isSchedule = (value: any) => value && typeof value === 'object' && 'currentStepIndex' in value && 'steps' in value;
  const schedules = [body?.rampSchedule, ...(Array.isArray(body?.rampSchedules) ? body.rampSchedules : []), isSchedule(body) ? body : undefined].filter(isSchedule);
  for (const schedule of schedules) {
    if (!rampScheduleValidator(schedule)) {
      throw new Error(`Not GrowthBook 5.0.1's RampSchedule: ${JSON.stringify(rampScheduleValidator.errors, null, 2)}\n${JSON.stringify(schedule, null, 2)}`);
    }
  }
  return schedules.length;
}
