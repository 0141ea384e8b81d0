/**
 * A MODELLED remote node for the bench: an HTTP JSON-RPC proxy in front of a local anvil that
 * holds every HTTP request `rttMs` before forwarding it (one round trip per HTTP request; a
 * JSON-RPC batch pays it once, as it would to a real node). Requests are not serialised: many
 * in flight each wait their own `rttMs`, like parallel connections to a remote node. Bandwidth,
 * the node's own work and its rate limits are NOT modelled, so figures measured through it are
 * labelled "RTT-modelled" in bench/README.md and always reported beside the loopback figure.
 *
 *   const proxy = await startLatencyProxy("http://127.0.0.1:8545", 40);
 *   ... index against proxy.url ...
 *   console.log(proxy.requests);   // HTTP requests forwarded
 *   await proxy.close();
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type LatencyProxy = { url: string; rttMs: number; readonly requests: number; close(): Promise<void> };

export async function startLatencyProxy(upstream: string, rttMs: number): Promise<LatencyProxy> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests++;
      const body = Buffer.concat(chunks);
      setTimeout(() => {
        fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body })
          .then(async (response) => {
            const text = Buffer.from(await response.arrayBuffer());
            res.writeHead(response.status, { "content-type": "application/json", "content-length": text.length });
            res.end(text);
          })
          .catch((error: unknown) => {
            res.writeHead(502, { "content-type": "application/json" });
            res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: String(error) } }));
          });
      }, rttMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    rttMs,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
