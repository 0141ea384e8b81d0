import { gunzipSync } from "node:zlib";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { acceptsGzip, sendJsonBody } from "../../api/http/json-body";

describe("acceptsGzip", () => {
  it("admits gzip or * with a positive q, the first that names either deciding", () => {
    expect(acceptsGzip("gzip, deflate, br")).toBe(true);
    expect(acceptsGzip("br;q=1.0, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("gzip;q=0, *")).toBe(false);
    expect(acceptsGzip("deflate, br")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});

describe("sendJsonBody", () => {
  const large = new TextEncoder().encode(JSON.stringify({ data: { pods: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `pod ${i}` })) } }));
  const small = new TextEncoder().encode(JSON.stringify({ data: { ok: true } }));
  const app = new Hono();
  app.get("/large", (c) => sendJsonBody(c, large));
  app.get("/small", (c) => sendJsonBody(c, small));

  it("sends a large body gzip-encoded to a client that accepts gzip, the same bytes once decoded", async () => {
    const res = await app.request("/large", { headers: { "Accept-Encoding": "gzip, deflate, br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    expect(res.headers.get("content-type")).toBe("application/json");
    const encoded = new Uint8Array(await res.arrayBuffer());
    expect(encoded.byteLength).toBeLessThan(large.byteLength / 3);
    expect(gunzipSync(encoded)).toEqual(Buffer.from(large));
    // compressed once per body: the same bytes again
    const again = new Uint8Array(await (await app.request("/large", { headers: { "Accept-Encoding": "gzip" } })).arrayBuffer());
    expect(again).toEqual(encoded);
  });

  it("sends the body as it is without gzip in Accept-Encoding, and a small body always", async () => {
    for (const [path, headers] of [
      ["/large", {}],
      ["/large", { "Accept-Encoding": "gzip;q=0" }],
      ["/small", { "Accept-Encoding": "gzip" }],
    ] as const) {
      const res = await app.request(path, { headers });
      expect(res.headers.get("content-encoding"), path).toBeNull();
      expect(res.headers.get("vary"), path).toBe("Accept-Encoding");
      expect(new Uint8Array(await res.arrayBuffer()), path).toEqual(path === "/large" ? large : small);
    }
  });
});
