/**
 * Every operation of the three surfaces shows a complete, valid example in its reference (/docs):
 * the request body of each operation that takes one, and the body of each success response.
 * An example is what Swagger UI shows: the media type's or the schema's own `example`, else one
 * built from the examples of its parts (every property of an object, an array's items, a union's
 * first variant that has one). A part without any example would show a placeholder such as
 * "string", so it counts as missing. Each example must also satisfy its schema.
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { COMPONENT_REF, type Document, exampleOf, type MediaType, mediaExample, operationsOf, type Schema } from "../support/openapi";
import { documentOnlySurfaces, type SurfaceName } from "../support/surfaces";

const surfaces = documentOnlySurfaces();
afterAll(() => surfaces.cleanup());

/** Why `value` does not satisfy `schema` (its components as JSON Schema `$defs`), or undefined. */
function schemaViolation(document: Document, schema: Schema, value: unknown): string | undefined {
  const rewrite = (node: unknown) =>
    JSON.parse(JSON.stringify(node ?? {}).replaceAll(`"${COMPONENT_REF}`, '"#/$defs/')) as Schema;
  const root = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...rewrite(schema),
    $defs: rewrite(document.components?.schemas),
  };
  const result = z.fromJSONSchema(root as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value);
  return result.success ? undefined : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
}

interface Finding {
  where: string;
  problem: string;
}

async function examineSurface(surface: SurfaceName): Promise<{ checked: number; findings: Finding[] }> {
  const document = (await (await surfaces.apps[surface].request("/openapi.json")).json()) as Document;
  const findings: Finding[] = [];
  let checked = 0;
  const examine = (where: string, media: MediaType) => {
    checked++;
    const example = mediaExample(document, media);
    if (!example) return findings.push({ where, problem: "no example" });
    const violation = media.schema && schemaViolation(document, media.schema, example.value);
    if (violation) findings.push({ where, problem: `example does not match the schema: ${violation}` });
  };
  for (const { method, path, operation } of operationsOf(document)) {
    const name = `${surface} ${method} ${path}`;
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) examine(`${name} request ${type}`, media);
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (!status.startsWith("2")) continue;
      for (const [type, media] of Object.entries(response.content ?? {})) examine(`${name} ${status} ${type}`, media);
    }
  }
  return { checked, findings };
}

describe("OpenAPI examples", () => {
  it.each(["platform", "chat", "eval"] as const)(
    "%s: every request body and every success response has a complete example that matches its schema",
    async (surface) => {
      const { checked, findings } = await examineSurface(surface);
      expect(checked).toBeGreaterThan(5);
      expect(findings).toEqual([]);
    },
  );

  it("counts a schema without an example as missing, and a wrong example as invalid", () => {
    const document: Document = {
      paths: {},
      components: { schemas: { Id: { type: "string", format: "uuid", example: "not-a-uuid" } } },
    };
    const envelope = { type: "object", properties: { id: { $ref: `${COMPONENT_REF}Id` }, name: { type: "string" } }, required: ["id"] };
    expect(exampleOf(document, envelope)).toBeUndefined();
    const withName = { ...envelope, properties: { ...envelope.properties, name: { type: "string", example: "Scout" } } };
    expect(exampleOf(document, withName)).toEqual({ value: { id: "not-a-uuid", name: "Scout" } });
    expect(schemaViolation(document, withName, { id: "not-a-uuid", name: "Scout" })).toMatch(/^id: /);
    expect(schemaViolation(document, withName, { id: "3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f", name: "Scout" })).toBeUndefined();
  });
});
