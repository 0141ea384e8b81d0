import { createServer, type Server, type ServerOptions } from "node:http";
import { serve, type ServerType } from "@hono/node-server";
import type { NodeListener } from "./cached-read-front";
import { answerClientErrorsAsJson } from "./node-errors";

export interface ServableApp {
  fetch: Parameters<typeof serve>[0]["fetch"];
  /** Sees each Node request before the app (api/http/cached-read-front.ts). */
  front?: (next: NodeListener) => NodeListener;
}

/** Serves `app` on `hostname`:`port` (0: a free port), its front first; resolves once listening. */
export function serveApp(app: ServableApp, hostname: string, port: number): Promise<ServerType> {
  const front = app.front;
  const withFront = front && ((options: ServerOptions, listener: NodeListener) => createServer(options, front(listener)));
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port, createServer: withFront as typeof createServer | undefined }, () =>
      resolve(server),
    );
    server.once("error", reject);
    answerClientErrorsAsJson(server as Server);
  });
}
