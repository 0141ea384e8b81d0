/**
 * Reading the surfaces' OpenAPI documents in tests: their operations, and the example Swagger UI
 * shows for a body (the media type's or the schema's own, else one built from its parts').
 */
export type Schema = { [key: string]: unknown };
export interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
export interface Operation {
  operationId?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export const COMPONENT_REF = "#/components/schemas/";
export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** The example Swagger UI would show for `schema`, or undefined when some part has none. */
export function exampleOf(document: Document, schema: Schema | undefined, seen: string[] = []): { value: unknown } | undefined {
  if (!schema) return undefined;
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.slice(COMPONENT_REF.length);
    if (seen.includes(name)) return undefined;
    return exampleOf(document, document.components?.schemas?.[name], [...seen, name]);
  }
  if ("example" in schema) return { value: schema.example };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if ("const" in schema) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] };
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants) {
    for (const variant of variants) {
      const found = exampleOf(document, variant, seen);
      if (found) return found;
    }
    return undefined;
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((part) => exampleOf(document, part, seen));
    if (parts.some((part) => part === undefined || typeof part.value !== "object")) return undefined;
    return { value: Object.assign({}, ...parts.map((part) => part!.value)) };
  }
  if (schema.items) {
    const item = exampleOf(document, schema.items as Schema, seen);
    return item && { value: [item.value] };
  }
  if (schema.properties) {
    const value: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties as Record<string, Schema>)) {
      const found = exampleOf(document, property, seen);
      if (!found) return undefined;
      value[name] = found.value;
    }
    return { value };
  }
  return undefined;
}

export function mediaExample(document: Document, media: MediaType): { value: unknown } | undefined {
  if ("example" in media) return { value: media.example };
  const first = Object.values(media.examples ?? {})[0];
  if (first && "value" in first) return { value: first.value };
  return exampleOf(document, media.schema);
}

/** Every operation of `document`: method (upper case), path, operationId and the operation itself. */
export function operationsOf(document: Document) {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      method: method.toUpperCase(),
      path: route,
      operationId: item[method]!.operationId,
      operation: item[method]!,
    })),
  );
}
