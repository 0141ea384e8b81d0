/**
 * Sending a JSON body that was serialized once and is sent many times (the cached reads of
 * api/platform/read-cache.ts: a user's 1,000 pods are ~450 KB, a dataset ~0.5 MB). A client that
 * accepts gzip (browsers, fetch, curl --compressed, Python requests) gets it gzip-encoded,
 * compressed once per body and kept while the body is; any other gets it as it is.
 */
import { gzipSync } from "node:zlib";
import type { Context } from "hono";
import { requestHeader } from "./request-headers";

/** Smaller bodies are sent as they are: gzip would save a few bytes for its CPU. */
const MIN_GZIP_BYTES = 1024;

const gzipped = new WeakMap<Uint8Array, Uint8Array>();

/** Whether an `Accept-Encoding` value admits gzip (`gzip` or `*` with a q above 0; the first that names either decides). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  for (const part of acceptEncoding.split(",")) {
    const [coding, ...params] = part.split(";").map((token) => token.trim().toLowerCase());
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.find((param) => param.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** A 200 answer of `body` (JSON bytes, never changed after it is made), gzip-encoded when the client accepts it. */
export function sendJsonBody(c: Context, body: Uint8Array): Response {
  const headers: Record<string, string> = { "content-type": "application/json", vary: "Accept-Encoding" };
  if (body.byteLength < MIN_GZIP_BYTES || !acceptsGzip(requestHeader(c, "accept-encoding"))) {
    return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  }
  let encoded = gzipped.get(body);
  if (!encoded) gzipped.set(body, (encoded = gzipSync(body)));
  headers["content-encoding"] = "gzip";
  return new Response(encoded as Uint8Array<ArrayBuffer>, { status: 200, headers });
}
