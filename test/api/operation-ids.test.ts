import { afterAll, describe, expect, it } from "vitest";
import { documentOnlySurfaces } from "../support/surfaces";

// Only the OpenAPI documents are read: no request reaches the database.
const surfaces = documentOnlySurfaces();
afterAll(() => surfaces.cleanup());

type Document = { paths: Record<string, Record<string, { operationId?: string }>> };

async function operations(app: { request: (path: string) => Response | Promise<Response> }) {
  const document = (await (await app.request("/openapi.json")).json()) as Document;
  return Object.entries(document.paths).flatMap(([route, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ operation: `${method.toUpperCase()} ${route}`, id: operation.operationId })),
  );
}

describe("OpenAPI documents", () => {
  it("give every operation of the three surfaces a unique operationId", async () => {
    const { platform, chat, eval: evaluation } = surfaces.apps;
    const all = [...(await operations(platform)), ...(await operations(chat)), ...(await operations(evaluation))];
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter((entry) => !entry.id).map((entry) => entry.operation)).toEqual([]);
    const ids = all.map((entry) => entry.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });
});
