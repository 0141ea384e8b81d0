import { createRoute, z } from "@hono/zod-openapi";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createRouter, createTestApp } from "../../api/http/create-app";
import { conflict, unauthorized } from "../../api/http/errors";
import { jsonContent } from "../../api/http/openapi";

const createPodRoute = createRoute({
  method: "post",
  path: "/pods",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({ podName: z.string().min(3).max(50), url: z.url() }),
        },
      },
    },
  },
  responses: { 201: jsonContent(z.object({ id: z.string() }), "Created") },
});

const listRoute = createRoute({
  method: "get",
  path: "/items",
  request: { query: z.object({ page: z.coerce.number().int().min(1).default(1) }) },
  responses: { 200: jsonContent(z.object({ page: z.number() }), "A page") },
});

function buildApp() {
  const router = createRouter();
  router.openapi(createPodRoute, (c) => c.json({ id: c.req.valid("json").podName }, 201));
  router.openapi(listRoute, (c) => c.json({ page: c.req.valid("query").page }, 200));
  router.get("/boom", () => {
    throw new Error("secret connection string postgres://user:pw@db");
  });
  router.get("/private", () => {
    throw unauthorized();
  });
  router.get("/taken", () => {
    throw conflict("Transaction already used");
  });
  router.get("/unique-race", () => {
    const duplicate = new pg.DatabaseError("duplicate key value violates unique constraint", 0, "error");
    duplicate.code = "23505";
    throw duplicate;
  });
  router.post("/raw-json", async (c) => c.json(await c.req.json()));
  return createTestApp(router);
}

async function errorOf(response: Response): Promise<string> {
  const body = (await response.json()) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error).toBe("string");
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return body.error as string;
}

const postJson = (body: string, contentType = "application/json") =>
  ({ method: "POST", body, headers: { "content-type": contentType } }) as const;

describe("error responses", () => {
  const app = buildApp();

  it("answers an unknown route with 404 and a flat error", async () => {
    const response = await app.request("/does-not-exist");
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toBe("Not found");
  });

  it("answers a body that is not JSON with 400 Invalid JSON body", async () => {
    const response = await app.request("/pods", postJson("{not json"));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe("Invalid JSON body");
  });

  it("answers a handler's own failed JSON parse with 400 Invalid JSON body", async () => {
    const response = await app.request("/raw-json", postJson("[1,"));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe("Invalid JSON body");
  });

  it("names the failing body field in a 400 validation error", async () => {
    const response = await app.request("/pods", postJson(JSON.stringify({ podName: "ab", url: "https://x.test" })));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe("podName: Too small: expected string to have >=3 characters");
  });

  it("lists every failing field, including missing ones", async () => {
    const response = await app.request("/pods", postJson(JSON.stringify({ podName: "abc" })));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatch(/^url: Invalid input/);
  });

  it("names the failing query parameter", async () => {
    const response = await app.request("/items?page=0");
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe("page: Too small: expected number to be >=1");
  });

  it("accepts a valid request", async () => {
    const response = await app.request("/pods", postJson(JSON.stringify({ podName: "abc", url: "https://x.test" })));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: "abc" });
  });

  it("rejects a body of another media type with a flat 415", async () => {
    const response = await app.request("/pods", postJson("podName=abc", "text/plain"));
    expect(response.status).toBe(415);
    expect(await errorOf(response)).toBe("Unsupported Media Type");
  });

  it("answers an unexpected exception with 500 and no internals", async () => {
    const response = await app.request("/boom");
    expect(response.status).toBe(500);
    const raw = await response.clone().text();
    expect(raw).not.toMatch(/secret|postgres:|\bat\b.*\.ts/);
    expect(await errorOf(response)).toBe("Internal server error");
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers an auth failure with exactly 401 Unauthorized", async () => {
    const response = await app.request("/private");
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toBe("Unauthorized");
  });

  it("keeps the message of a deliberate HttpError", async () => {
    const response = await app.request("/taken");
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toBe("Transaction already used");
  });

  it("turns a unique-constraint race into 409 rather than 500", async () => {
    const response = await app.request("/unique-race");
    expect(response.status).toBe(409);
    expect(await errorOf(response)).toBe("Conflict");
  });

  it("echoes the caller's X-Request-Id", async () => {
    const response = await app.request("/does-not-exist", { headers: { "X-Request-Id": "trace-123" } });
    expect(response.headers.get("x-request-id")).toBe("trace-123");
  });
});
