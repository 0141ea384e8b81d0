/**
 * The Platform API's response cache (api/http/response-cache.ts) over its public reads:
 * `/public/*` and `GET /stats`, invalidated by the indexer's checkpoint and the off-chain change
 * counter. `READ_CACHE=off` disables it (the bench's uncached figures).
 */
import type { ApiDeps } from "../deps";
import { createReadVersion } from "../http/read-version";
import { countCacheLookup } from "../http/metrics";
import { createResponseCache, type ResponseCache } from "../http/response-cache";
import { onCountCacheLookup } from "./repositories/count-cache";

export function createPlatformReadCache(deps: ApiDeps, basePath: string, env: NodeJS.ProcessEnv = process.env): ResponseCache | undefined {
  // the list totals' cache (repositories/count-cache.ts) works with or without the response cache
  onCountCacheLookup((hit) => countCacheLookup("platform", "count", hit ? "hit" : "miss"));
  if (env.READ_CACHE === "off") return undefined;
  const publicPrefix = `${basePath}/public/`;
  const stats = `${basePath}/stats`;
  return createResponseCache({
    version: createReadVersion(deps.pool, deps.config.ponderViewsSchema),
    cacheable: (path) => path.startsWith(publicPrefix) || path === stats,
  });
}
