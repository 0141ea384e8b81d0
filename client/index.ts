/**
 * Typed clients of the three surfaces: openapi-fetch over the types openapi-typescript generated
 * from each surface's OpenAPI document (client/platform.ts, chat.ts, eval.ts; regenerate with
 * `npm run build:client`). Paths, parameters, bodies and answers are checked by the compiler:
 *
 *   const platform = createPlatformClient("http://127.0.0.1:3000");
 *   const { data, error, response } = await platform.GET("/api/v1/public/pods/{podId}", {
 *     params: { path: { podId: "1" } },
 *   });
 *   // data: the 200 body ({ data: { pod: ... } }); error: the flat {"error": "..."} of a 4xx/5xx
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths as ChatPaths } from "./chat.js";
import type { paths as EvalPaths } from "./eval.js";
import type { paths as PlatformPaths } from "./platform.js";

export type { ChatPaths, EvalPaths, PlatformPaths };
export type { components as ChatComponents, operations as ChatOperations } from "./chat.js";
export type { components as EvalComponents, operations as EvalOperations } from "./eval.js";
export type { components as PlatformComponents, operations as PlatformOperations } from "./platform.js";

/** openapi-fetch's options but `baseUrl`: headers (a cookie, an `Authorization`), a custom `fetch`, ... */
export type TypedClientOptions = Omit<ClientOptions, "baseUrl">;

/** `origin`: the surface's origin, e.g. `http://127.0.0.1:3000`; the documents' paths carry their `/api/v1` prefix. */
const base = (origin: string) => origin.replace(/\/+$/, "");

/** The Platform API (`PLATFORM_PORT`, paths under `/api/v1`). */
export function createPlatformClient(origin: string, options: TypedClientOptions = {}): Client<PlatformPaths> {
  return createClient<PlatformPaths>({ ...options, baseUrl: base(origin) });
}

/** The chat server (`CHAT_PORT`, no prefix). */
export function createChatClient(origin: string, options: TypedClientOptions = {}): Client<ChatPaths> {
  return createClient<ChatPaths>({ ...options, baseUrl: base(origin) });
}

/** The Evaluation API (`EVAL_PORT`, paths under `/api/v1`). */
export function createEvalClient(origin: string, options: TypedClientOptions = {}): Client<EvalPaths> {
  return createClient<EvalPaths>({ ...options, baseUrl: base(origin) });
}
