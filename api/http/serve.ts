import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import { serve, type ServerType } from "@hono/node-server";
import { answerClientErrorsAsJson, answerMissingHostAsJson } from "./node-errors";

export interface ServableApp {
  fetch: Parameters<typeof serve>[0]["fetch"];
}

type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/**
 * Serves `app` on `hostname`:`port` (0: a free port); resolves once listening.
 * Whatever Node itself would refuse before the app (a missing Host, what its parser rejects)
 * is answered with the flat JSON error body (api/http/node-errors.ts).
 */
export function serveApp(app: ServableApp, hostname: string, port: number): Promise<ServerType> {
  const create = (options: ServerOptions, listener: NodeListener) =>
    createServer({ ...options, requireHostHeader: false }, answerMissingHostAsJson(listener));
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port, createServer: create as typeof createServer }, () =>
      resolve(server),
    );
    server.once("error", reject);
    answerClientErrorsAsJson(server as Server);
  });
}
