/**
 * The API the read-path benches load: the real server on a bench database (views in `chain`,
 * logs off, rate limit out of the way: every request comes from one IP), and a session token of
 * the generated power user. `tmp` holds the local IdP key; DEPLOYMENTS_FILE must be set.
 */
import path from "node:path";
import { loadConfig, type ApiConfig } from "../../api/config";
import { localIdpKeyPair, signLocalIdpToken } from "../../api/http/auth/idp-cookie";
import { startApiServer, type ApiServer } from "../../api/server";
import { startIndexer, type Indexer } from "../../ops/indexer";
import { POWER_USER_SUB } from "./data";

export async function startBenchApi(databaseUrl: string, tmp: string): Promise<{ api: ApiServer; config: ApiConfig; token: string }> {
  const config = benchApiConfig(databaseUrl, tmp);
  const { privateJwk } = await localIdpKeyPair(process.env.IDP_LOCAL_KEY_FILE);
  const token = await signLocalIdpToken({ sub: POWER_USER_SUB, username: "user 1" }, { privateJwk });
  return { api: await startApiServer(config), config, token };
}

/** The settings of the bench's API, also its reference servers' (measure.ts); the local IdP key in `tmp`. */
export function benchApiConfig(databaseUrl: string, tmp: string): ApiConfig {
  process.env.IDP_LOCAL_KEY_FILE = path.join(tmp, "idp-key.json");
  process.env.STATS_API_KEYS ??= "bench-stats-key";
  return loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PONDER_VIEWS_SCHEMA: "chain",
    LOG_LEVEL: "silent",
    PLATFORM_PORT: "0",
    CHAT_PORT: "0",
    EVAL_PORT: "0",
    RATE_LIMIT_POINTS: "1000000000",
  });
}

/** Our indexer on the bench chain, its views in `chain`, its log (warnings and worse) in `tmp`. */
export function startBenchIndexer(options: {
  databaseUrl: string;
  schema: string;
  rpcUrl: string;
  deploymentsFile: string;
  tmp: string;
  env?: Record<string, string>;
}): Promise<Indexer> {
  const { tmp, ...rest } = options;
  return startIndexer({ ...rest, viewsSchema: "chain", logLevel: "warn", logFile: path.join(tmp, "indexer.log") });
}
