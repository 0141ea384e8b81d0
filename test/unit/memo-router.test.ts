import { Hono } from "hono";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { MemoRouter } from "../../api/http/memo-router";

/** The Platform API's shape that makes Hono's RegExpRouter give up: a parameter beside a static segment. */
function podsApp(router = new MemoRouter<never>(4)) {
  const app = new Hono({ router: router as never });
  app.use("/me/*", async (c, next) => {
    await next();
    c.header("x-middleware", "ran");
  });
  app.get("/me/pods/votes/epochs/:epochId", (c) => c.json({ epoch: c.req.param("epochId") }));
  app.get("/me/pods/:id", (c) => c.json({ id: c.req.param("id") }));
  app.get("/me/pods", (c) => c.json({ list: true }));
  return app;
}

describe("MemoRouter", () => {
  it("answers like Hono's own router, parameters and middleware included, for repeated and new paths", async () => {
    const app = podsApp();
    for (let round = 0; round < 2; round++) {
      for (const [path, body] of [
        ["/me/pods/7", { id: "7" }],
        ["/me/pods/votes/epochs/3", { epoch: "3" }],
        ["/me/pods", { list: true }],
        ["/me/pods/8", { id: "8" }],
        ["/me/pods/caf%C3%A9", { id: "café" }],
      ] as const) {
        const res = await app.request(path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get("x-middleware"), path).toBe("ran");
        expect(await res.json(), path).toEqual(body);
      }
    }
    expect((await app.request("/me/other")).status).toBe(404);
    expect((await app.request("/me/pods/7", { method: "POST" })).status).toBe(404);
  });

  it("remembers at most its bound of paths, dropping the oldest first", () => {
    const router = new MemoRouter<string>(2);
    router.add("GET", "/pods/:id", "pod");
    const first = router.match("GET", "/pods/1");
    expect(router.match("GET", "/pods/1")).toBe(first); // remembered: the same result
    router.match("GET", "/pods/2");
    router.match("GET", "/pods/3"); // past the bound: /pods/1 is dropped
    const again = router.match("GET", "/pods/1");
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    const plain = new SmartRouter<string>({ routers: [new RegExpRouter(), new TrieRouter()] });
    plain.add("GET", "/pods/:id", "pod");
    expect(router.match("GET", "/pods/3")).toEqual(plain.match("GET", "/pods/3"));
  });
});
