/**
 * The Platform API's response cache (api/http/response-cache.ts) over its public reads:
 * `/public/*` and `GET /stats`, invalidated by the indexer's checkpoint and the off-chain change
 * counter; and `cachedBody`, the same invalidation for a caller's own
 * reads (`GET /me/pods`) and for the dataset downloads of subscribed agents.
 * `READ_CACHE=off` disables both (the bench's uncached figures).
 */
import type pg from "pg";
import type { ApiDeps } from "../deps";
import { createReadVersion, type ReadVersion } from "../http/read-version";
import { countCacheLookup } from "../http/metrics";
import { createResponseCache, type ResponseCache } from "../http/response-cache";
import { createVersionedValues } from "../lib/versioned-values";
import type { PlatformConfig } from "./config";
import { onCountCacheLookup } from "./repositories/count-cache";

/** One read version per pool and views schema: the response cache and the user reads share its probes. */
const readVersions = new WeakMap<pg.Pool, Map<string, ReadVersion>>();

/**
 * `versionMaxAgeMs` (READ_VERSION_MAX_AGE_MS, default 0, at most 1,000): how old a read version an
 * anonymous public read may be answered at. 0: every read waits for a probe that started after it arrived, so
 * any committed change shows on its next request on every replica. N > 0: no read waits for a
 * probe (one runs in the background every N/2 ms), and a change committed elsewhere shows on
 * anonymous reads within N ms; requests with a cookie or `Cache-Control: no-cache`, and every
 * read after a write through the same replica, still wait for a fresh probe. Measured at 10k
 * pods (bench/read-path), 0 and 100 serve a cached page at the same rate within the noise: the
 * probe is shared by every request that arrives meanwhile.
 */
export type ReadCacheSettings = PlatformConfig["readCache"];

export function platformReadVersion(pool: pg.Pool, viewsSchema: string, settings: ReadCacheSettings): ReadVersion {
  let bySchema = readVersions.get(pool);
  if (!bySchema) readVersions.set(pool, (bySchema = new Map()));
  let version = bySchema.get(viewsSchema);
  if (!version) bySchema.set(viewsSchema, (version = createReadVersion(pool, viewsSchema, { maxAgeMs: settings.versionMaxAgeMs })));
  return version;
}

export function createPlatformReadCache(deps: ApiDeps, basePath: string, settings: ReadCacheSettings): ResponseCache | undefined {
  // the list totals' cache (repositories/count-cache.ts) works with or without the response cache
  onCountCacheLookup((hit) => countCacheLookup("platform", "count", hit ? "hit" : "miss"));
  if (!settings.enabled) return undefined;
  const publicPrefix = `${basePath}/public/`;
  const stats = `${basePath}/stats`;
  return createResponseCache({
    version: platformReadVersion(deps.pool, deps.config.ponderViewsSchema, settings),
    cacheable: (path) => path.startsWith(publicPrefix) || path === stats,
  });
}

/** At most 1,000 bodies, 64 MB (a user with 1,000 pods: ~450 KB; a dataset of 1,000 items: a few MB). */
const bodies = createVersionedValues<Uint8Array>({ sizeOf: (body) => body.byteLength });
const encoder = new TextEncoder();

type ReadContext = { pool: pg.Pool; viewsSchema: string; platform: { config: { readCache: ReadCacheSettings } } };

/**
 * The JSON body of `compute()` for `key`, computed once per read version, for reads the response
 * cache does not see: a caller's own (`GET /me/pods`, the key names the caller) and a datanet's
 * dataset download (the key names the datanet and item limit; ~30 ms of CPU at 1,000 items, and
 * agents fetch the same datanets again and again; their access is checked before). The version
 * is read strictly (a probe that started after the call, shared by concurrent requests), so the
 * caller sees its own writes and any indexed block at once.
 */
export async function cachedBody(ctx: ReadContext, key: string, compute: () => Promise<unknown>): Promise<Uint8Array> {
  const settings = ctx.platform.config.readCache;
  const version = settings.enabled ? await platformReadVersion(ctx.pool, ctx.viewsSchema, settings).current() : undefined;
  const encoded = async () => encoder.encode(JSON.stringify(await compute()));
  return version === undefined ? encoded() : bodies.get(key, version, encoded);
}
