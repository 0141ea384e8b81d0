import { createServer, type Server, type ServerOptions } from "node:http";
import { serve, type ServerType } from "@hono/node-server";
import type { NodeListener } from "./cached-read-front";
import { answerClientErrorsAsJson, answerMissingHostAsJson } from "./node-errors";

export interface ServableApp {
  fetch: Parameters<typeof serve>[0]["fetch"];
  /** Sees each Node request before the app (api/http/cached-read-front.ts). */
  front?: (next: NodeListener) => NodeListener;
}

/**
 * Serves `app` on `hostname`:`port` (0: a free port), its front first; resolves once listening.
 * Whatever Node itself would refuse before the app (a missing Host, what its parser rejects)
 * is answered with the flat JSON error body (api/http/node-errors.ts).
 */
export function serveApp(app: ServableApp, hostname: string, port: number): Promise<ServerType> {
  const front = app.front;
  const create = (options: ServerOptions, listener: NodeListener) =>
    createServer({ ...options, requireHostHeader: false }, answerMissingHostAsJson(front ? front(listener) : listener));
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port, createServer: create as typeof createServer }, () =>
      resolve(server),
    );
    server.once("error", reject);
    answerClientErrorsAsJson(server as Server);
  });
}
