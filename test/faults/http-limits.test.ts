import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "../../api/server";
import { type ChainlessApi, startChainlessApi } from "../support/api-server";

// The three surfaces as `npm start` serves them (api/server.ts): bodies over each surface's limit
// are 413 at once without being read into memory, and what Node's HTTP parser refuses gets the
// flat JSON error body too.

let server: ChainlessApi | undefined;
let api: ApiServer;

beforeAll(async () => {
  server = await startChainlessApi("faults-http");
  api = server.api;
});

afterAll(async () => {
  await server?.stop();
});

const MB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");

interface RawAnswer {
  status: number;
  body: string;
  contentType: string | undefined;
}

/**
 * POSTs `size` bytes of a JSON string from one reused 64 KB chunk (the client holds no large
 * buffer), with Content-Length or chunked; stops sending once the server has answered.
 */
function postLarge(base: string, route: string, size: number, chunked: boolean): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(route, base);
    const headers: Record<string, string | number> = { "content-type": "application/json" };
    if (!chunked) headers["content-length"] = size;
    const request = http.request(url, { method: "POST", headers });
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (data: string) => (body += data));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, body, contentType: response.headers["content-type"] }),
      );
      response.on("error", reject);
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    let sent = 0;
    const pump = () => {
      while (!answered && sent < size) {
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, size - sent));
        sent += piece.length;
        if (!request.write(piece)) return void request.once("drain", pump);
      }
      if (!answered || sent >= size) request.end();
    };
    request.write('{"name":"');
    sent = 9;
    pump();
  });
}

describe("body size limits on every surface", () => {
  const targets = () => [
    { surface: "platform", base: api.urls.platform, route: "/api/v1/agents/register" },
    { surface: "chat", base: api.urls.chat, route: "/auth/nonce" },
    { surface: "eval", base: api.urls.eval, route: "/api/v1/agents/eval-requests/submit" },
    { surface: "eval (public)", base: api.urls.eval, route: "/api/v1/keys" },
  ];

  for (const chunked of [false, true]) {
    it(`answers a 10 MB body (${chunked ? "chunked" : "Content-Length"}) 413 quickly, with little memory growth`, async () => {
      globalThis.gc?.();
      const rssBefore = process.memoryUsage().rss;
      for (const { surface, base, route } of targets()) {
        const started = Date.now();
        const answers = await Promise.all([1, 2, 3, 4].map(() => postLarge(base, route, 10 * MB, chunked)));
        const elapsed = Date.now() - started;
        for (const answer of answers) {
          expect(answer.status, `${surface} ${route}: ${answer.body.slice(0, 200)}`).toBe(413);
          expect(JSON.parse(answer.body)).toEqual({ error: "Payload too large" });
        }
        expect(elapsed, surface).toBeLessThan(5_000);
      }
      const growthMb = (process.memoryUsage().rss - rssBefore) / MB;
      console.info(`10 MB bodies (${chunked ? "chunked" : "Content-Length"}), 4 at once per route: RSS grew ${growthMb.toFixed(1)} MB`);
      expect(growthMb).toBeLessThan(64);
    });
  }

  it("still accepts a body just under the surface's limit", async () => {
    const answer = await postLarge(api.urls.chat, "/auth/nonce", 60 * 1024, false);
    expect(answer.status).toBe(400); // parsed and validated, not refused for size
  });
});

/** Sends `raw` bytes on a fresh TCP connection and returns what comes back before the server closes. */
function rawExchange(base: string, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(base);
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(raw));
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (data: string) => (received += data));
    socket.on("end", () => resolve(received));
    socket.on("close", () => resolve(received));
    socket.on("error", (error) => (received ? resolve(received) : reject(error)));
    socket.setTimeout(5_000, () => socket.destroy());
  });
}

function parseRaw(response: string) {
  const [head = "", body = ""] = response.split("\r\n\r\n", 2);
  const status = Number(head.split(" ")[1]);
  return { status, head, body };
}

describe("errors of Node's HTTP parser answer the flat JSON body", () => {
  const cases: Array<{ name: string; raw: () => string; status: number }> = [
    {
      name: "a 20 KB header",
      raw: () => `GET /ready HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`,
      status: 431,
    },
    { name: "a 20 KB URL", raw: () => `GET /${"a".repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, status: 431 },
    { name: "a NUL in a header", raw: () => "GET /ready HTTP/1.1\r\nHost: x\r\nX-Bad: a\0b\r\n\r\n", status: 400 },
    {
      name: "Content-Length with Transfer-Encoding",
      raw: () =>
        "POST /ready HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      status: 400,
    },
    {
      name: "too many headers",
      raw: () =>
        `GET /ready HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: 1\r\n`).join("")}\r\n`,
      status: 431,
    },
    { name: "no Host header (HTTP/1.1)", raw: () => "GET /ready HTTP/1.1\r\n\r\n", status: 400 },
    {
      name: "a Host past Node's header-count limit (2000; Node drops the rest)",
      raw: () =>
        `GET /ready HTTP/1.1\r\n${Array.from({ length: 2000 }, (_, i) => `X${i}: 1\r\n`).join("")}Host: x\r\n\r\n`,
      status: 400,
    },
    {
      name: "a malformed chunk",
      raw: () => "POST /ready HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
      status: 400,
    },
    { name: "a request line that is not HTTP", raw: () => "HELLO\r\n\r\n", status: 400 },
  ];

  for (const { name, raw, status } of cases) {
    it(`${name}: ${status} with {"error": ...}`, async () => {
      for (const base of [api.urls.platform, api.urls.chat, api.urls.eval]) {
        const response = parseRaw(await rawExchange(base, raw()));
        expect(response.status, response.head).toBe(status);
        expect(response.head.toLowerCase()).toContain("content-type: application/json");
        const body = JSON.parse(response.body) as Record<string, unknown>;
        expect(Object.keys(body)).toEqual(["error"]);
        expect(body.error).toBeTypeOf("string");
      }
    });
  }

  it("names the missing Host, and still serves an HTTP/1.0 request without one", async () => {
    for (const base of [api.urls.platform, api.urls.chat, api.urls.eval]) {
      const missing = parseRaw(await rawExchange(base, "GET /health HTTP/1.1\r\n\r\n"));
      expect(JSON.parse(missing.body)).toEqual({ error: "Missing Host header" });
      expect(missing.head.toLowerCase()).toContain("connection: close");
      const old = parseRaw(await rawExchange(base, "GET /health HTTP/1.0\r\n\r\n"));
      expect(old.status, old.head).not.toBe(400);
    }
  });
});
