/**
 * The response cache's bounds and keys (api/http/response-cache.ts): at most `maxEntries` answers
 * and `maxBytes` bytes, the oldest stored dropped first; one request target on two Hosts is kept
 * twice. A constant read version: no database.
 */
import { describe, expect, it } from "vitest";
import { createRouter, createTestApp } from "../../api/http/create-app";
import type { ReadVersion } from "../../api/http/read-version";
import { CACHE_STATUS_HEADER, createResponseCache } from "../../api/http/response-cache";

const VERSION: ReadVersion = { current: async () => "v1", recent: () => "v1", invalidate: () => undefined };

function cachedApp(bounds: { maxEntries?: number; maxBytes?: number }) {
  const cache = createResponseCache({
    version: VERSION,
    cacheable: (path) => path.startsWith("/api/v1/public/"),
    ...bounds,
  });
  const router = createRouter();
  router.use("/api/v1/*", cache.middleware);
  const runs = new Map<string, number>();
  router.get("/api/v1/public/things/:id", (c) => {
    const key = `${new URL(c.req.url).host} ${c.req.param("id")}`;
    runs.set(key, (runs.get(key) ?? 0) + 1);
    return c.json({ id: c.req.param("id"), pad: "x".repeat(Number(c.req.query("pad") ?? 0)) });
  });
  const app = createTestApp(router);
  /** The x-cache of a GET of thing `id` (with `pad` bytes more) on `host`. */
  const get = async (id: string, { host = "a.test", pad = 0 } = {}) =>
    (await app.request(`http://${host}/api/v1/public/things/${id}${pad ? `?pad=${pad}` : ""}`)).headers.get(
      CACHE_STATUS_HEADER,
    );
  return { cache, get, runs };
}

describe("response cache bounds", () => {
  it("keeps at most maxEntries answers, dropping the oldest stored first", async () => {
    const { cache, get } = cachedApp({ maxEntries: 2 });
    expect([await get("1"), await get("2"), await get("1")]).toEqual(["miss", "miss", "hit"]);
    expect(await get("3")).toBe("miss"); // drops 1, stored first
    expect(cache.size()).toBe(2);
    expect([await get("2"), await get("3"), await get("1")]).toEqual(["hit", "hit", "miss"]);
  });

  it("keeps at most maxBytes bytes of bodies, and no body over a quarter of them", async () => {
    const { cache, get } = cachedApp({ maxBytes: 10_000 });
    const ids = ["1", "2", "3", "4"];
    const padded = { pad: 2_000 }; // a body of about 2,020 bytes: four fit in 10,000, five do not
    for (const id of ids) expect(await get(id, padded)).toBe("miss");
    for (const id of ids) expect(await get(id, padded)).toBe("hit");
    expect(await get("5", padded)).toBe("miss"); // drops 1, stored first
    expect(cache.size()).toBe(4);
    expect([await get("2", padded), await get("1", padded)]).toEqual(["hit", "miss"]);
    // a body over a quarter of maxBytes is never kept
    expect([await get("6", { pad: 3_000 }), await get("6", { pad: 3_000 })]).toEqual(["miss", "miss"]);
    expect(cache.size()).toBe(4);
  });

  it("keeps one request target per Host", async () => {
    const { cache, get, runs } = cachedApp({});
    expect([await get("1", { host: "a.test" }), await get("1", { host: "b.test" })]).toEqual(["miss", "miss"]);
    expect([await get("1", { host: "a.test" }), await get("1", { host: "b.test" })]).toEqual(["hit", "hit"]);
    expect(cache.size()).toBe(2);
    expect([runs.get("a.test 1"), runs.get("b.test 1")]).toEqual([1, 1]);
  });
});
