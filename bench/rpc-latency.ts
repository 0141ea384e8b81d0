/**
 * The bench's RTT-MODELLED remote node: the node simulator (bench/rpc-simulator.ts) with latency
 * only. Every HTTP request is held `rttMs` before it is answered (a JSON-RPC batch pays it once,
 * as it would to a real node); requests in flight wait in parallel, like parallel connections.
 * Bandwidth and the node's own work are NOT modelled, so figures measured through it are
 * labelled "RTT-modelled" in bench/README.md and always reported beside the loopback figure.
 *
 *   const proxy = await startLatencyProxy("http://127.0.0.1:8545", 40);
 *   ... index against proxy.url ...
 *   console.log(proxy.requests);   // HTTP requests forwarded
 *   await proxy.close();
 */
import { startRpcSimulator } from "./rpc-simulator";

export type LatencyProxy = { url: string; rttMs: number; readonly requests: number; close(): Promise<void> };

export async function startLatencyProxy(upstream: string, rttMs: number): Promise<LatencyProxy> {
  const node = await startRpcSimulator({ upstream, latencyMs: rttMs });
  return {
    url: node.url,
    rttMs,
    get requests() {
      return node.stats.httpRequests;
    },
    close: () => node.close(),
  };
}
