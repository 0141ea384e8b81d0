/**
 * The environment of every process (the API, the launcher, the indexer's config, the operator
 * commands): every variable in the zod schemas below, parsed once per environment object. Surface
 * configs (api/config.ts, api/platform/config.ts, api/chat/config.ts, api/eval/config.ts, the idp
 * cookie), chain/ and ops/ derive from it. Empty strings count as unset, as they do in most .env
 * tooling. This is the only module that touches `process.env` (biome's noProcessEnv enforces it);
 * it imports nothing of the project, so every layer may import it.
 */
import fs from "node:fs";
import { getAddress, isAddress, isHex } from "viem";
import { z } from "zod";

export type RawEnv = Record<string, string | undefined>;

/** The process's environment, as given: the one read of `process.env` in the project's code. */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const count = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);
const httpUrl = z.url({ protocol: /^https?$/ });
const decimal = z.string().regex(/^\d+(\.\d+)?$/, "must be a non-negative decimal number such as 0.05");
const address = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
  .transform((value) => getAddress(value));

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "pretty" | "json";

/** Where the local setup keeps its generated stats bearer key when STATS_API_KEYS is unset. */
export const DEFAULT_STATS_API_KEY_FILE = ".data/platform/stats-api-key";
export const DEFAULT_CORE_PRICE_USD = "0.05";
export const DEFAULT_LOCAL_IDP_KEY_FILE = ".data/idp/local-idp-key.json";
export const DEFAULT_EXPLORER_URL = "https://basescan.org";
export const DEFAULT_OEMBED_URL = "https://publish.twitter.com/oembed";
export const DEFAULT_X_API_URL = "https://api.x.com/2";

/** A subscription package sold for every public datanet; its price is the datanet's on-chain CORE access fee. */
export interface SubscriptionPackageConfig {
  id: string;
  subscriptionDays: number;
}

export const DEFAULT_SUBSCRIPTION_PACKAGES: SubscriptionPackageConfig[] = [{ id: "monthly", subscriptionDays: 30 }];

const packagesSchema = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(
        z.object({
          id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "package ids are 1-64 letters, digits, '-' or '_'"),
          subscriptionDays: z.number().int().min(1).max(3650),
        }),
      )
      .min(1)
      .refine((list) => new Set(list.map((p) => p.id)).size === list.length, "package ids must be unique"),
  );

/** `*`, `none`, or the listed origins (each `scheme://host[:port]`, no path). */
export type CorsOrigins = "*" | "none" | string[];

function parseCorsOrigins(text: string, fail: (message: string) => void): CorsOrigins {
  const value = text.trim();
  if (value === "*" || value === "none") return value;
  const origins = value.split(",").map((origin) => origin.trim()).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      fail(`"${origin}" is not an origin like https://app.example.org (scheme and host, lower case, no path); use * or none alone`);
      return "none";
    }
  }
  if (origins.length === 0) fail("lists no origin");
  return origins;
}

/** The process: database, ports, bind address, indexer, logs, rate limits. */
const serverVariables = {
  /** Unset: the API starts the project's embedded PostgreSQL server (ops/postgres). */
  DATABASE_URL: z.url().optional(),
  /**
   * Hot standbys of DATABASE_URL's primary, comma-separated: public reads go to one that has
   * replayed far enough (api/db/read-replicas.ts, docs/scaling.md). Unset: every read on the primary.
   */
  DATABASE_READ_URL: z
    .string()
    .transform((text, ctx) => {
      const list = text.split(",").map((item) => item.trim()).filter(Boolean);
      for (const item of list) {
        if (!z.url({ protocol: /^postgres(ql)?$/ }).safeParse(item).success) {
          ctx.addIssue({ code: "custom", message: "each entry must be a postgres:// URL" });
        }
      }
      return list;
    })
    .optional(),
  /** A replica last at the primary's position longer ago than this is skipped (and /ready says "lagging"). */
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  /** How often the one poller of a process reads each replica's replay position and the primary's. */
  DATABASE_READ_POLL_MS: z.coerce.number().int().min(20).max(10_000).default(250),
  /** Address the three surfaces bind; 0.0.0.0 (or ::) to accept connections from other machines. */
  HOST: z.string().min(1).default("127.0.0.1"),
  PLATFORM_PORT: port.default(3000),
  CHAT_PORT: port.default(3001),
  EVAL_PORT: port.default(3002),
  /** The indexer's HTTP address (its /status for /ready); required in production mode. */
  PONDER_URL: z.url().default("http://127.0.0.1:42069"),
  PONDER_VIEWS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "must be a lower-case PostgreSQL identifier")
    .default("chain"),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** Default: pretty when stdout is a terminal, JSON lines otherwise. */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  RATE_LIMIT_POINTS: positiveInt.default(120),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  /**
   * Redis for the rate-limit budgets (`redis://[:password@]host:port[/db]`): one exact count per
   * IP and identity across every replica. Unset: counted in process and synced to PostgreSQL.
   */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /** Prefix of every rate-limit key in Redis, so deployments sharing one Redis stay apart. */
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default("datamarket"),
  /** While Redis is unreachable: `open` counts per replica in memory, `closed` answers 503 with Retry-After. */
  REDIS_RATE_LIMIT_FAILURE: z.enum(["open", "closed"]).default("open"),
  /** A Redis command unanswered for this long counts as Redis being down (then REDIS_RATE_LIMIT_FAILURE applies). */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /** When true, the client IP is the last X-Forwarded-For entry, the one the nearest proxy appended; only behind a proxy. */
  TRUST_PROXY: z.stringbool().default(false),
  /**
   * On SIGTERM, keep serving this long before closing: /ready answers 503 and every answer closes
   * its connection, so a proxy stops reusing kept-alive connections (a POST sent on one the
   * server has just closed cannot be retried elsewhere). 0: close at once. Behind a proxy: 2000.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** /ready is 503 while the indexed head trails the chain head by more than this many blocks… */
  INDEXER_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(10),
  /** …or this many seconds of chain time. */
  INDEXER_MAX_LAG_SECONDS: z.coerce.number().int().min(0).default(60),
  /**
   * Browser origins the three surfaces answer cross-origin (CORS): `*` (any origin, never with
   * credentials, so no cookies), `none`, or a comma-separated list of origins such as
   * `https://app.example.org`, which are also allowed credentials (the Platform API's cookie).
   */
  CORS_ORIGINS: z
    .string()
    .default("*")
    .transform((text, ctx) => parseCorsOrigins(text, (message) => ctx.addIssue({ code: "custom", message }))),
  /** Bearer token `/metrics` requires. Unset: `/metrics` is served only while HOST is a loopback address. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
};

/** The identity provider whose `idp-token` cookie the Platform API accepts. */
const idpVariables = {
  IDP_JWKS_URL: z.url().optional(),
  /** A PEM (SPKI) public key or a JSON JWK, instead of a JWKS URL. */
  IDP_PUBLIC_KEY: z.string().optional(),
  IDP_ALGORITHMS: z.string().default("ES256,RS256,EdDSA"),
  IDP_ISSUER: z.string().default("local-idp"),
  IDP_AUDIENCE: z.string().default("datamarket-platform"),
  /** Claim that carries the user's wallet address. */
  IDP_WALLET_CLAIM: z.string().default("wallet_address"),
  IDP_LOCAL_KEY_FILE: z.string().default(DEFAULT_LOCAL_IDP_KEY_FILE),
};

const platformVariables = {
  /** Comma-separated bearer keys for /stats/summary and /stats/subnets/{id}. */
  STATS_API_KEYS: z.string().optional(),
  /** Local setup only: file holding a generated key used when STATS_API_KEYS is unset. */
  STATS_API_KEY_FILE: z.string().default(DEFAULT_STATS_API_KEY_FILE),
  /** Fixed CORE price in USD (used unless CORE_PRICE_FEED_ADDRESS is set). */
  CORE_PRICE_USD: decimal.default(DEFAULT_CORE_PRICE_USD),
  /** Chainlink-style aggregator (latestRoundData/decimals) quoting CORE in USD, on the protocol's chain. */
  CORE_PRICE_FEED_ADDRESS: address.optional(),
  /** How long a feed answer is reused before the feed is read again. */
  CORE_PRICE_FEED_CACHE_SECONDS: positiveInt.default(60),
  /** A feed answer older than this (by its updatedAt) is refused as stale. */
  CORE_PRICE_FEED_MAX_AGE_SECONDS: positiveInt.default(86_400),
  /** Confirmations a txHash needs before a mint, publish or parameter update is recorded. */
  TX_MIN_CONFIRMATIONS: positiveInt.default(1),
  /** Key that sends PodManager.invalidatePod for `npm run moderate -- ban` (default on a local chain: the devnet deployer). */
  MODERATOR_PRIVATE_KEY: z
    .string()
    .refine((value) => isHex(value) && value.length === 66, "must be a 0x-prefixed 32-byte hex key")
    .optional(),
  /** JSON list of `{ id, subscriptionDays }`. */
  SUBSCRIPTION_PACKAGES: packagesSchema.optional(),
  /** Confirmations a package payment needs before its order is VERIFIED. */
  ORDER_MIN_CONFIRMATIONS: count(1, 1_000),
  /** Cap on each array of a dataset download. */
  DATASET_MAX_ITEMS: count(1_000, 100_000),
  /** Dataset downloads built at once per process (each holds up to 3 pooled connections while it reads). */
  DATASET_MAX_CONCURRENT: count(2, 100),
  /** Dataset downloads waiting for a slot; beyond it 503 with Retry-After. */
  DATASET_MAX_QUEUED: z.coerce.number().int().min(0).max(10_000).default(20),
  /** Cap on the public vote list of one pod and epoch. */
  PUBLIC_VOTES_MAX_ITEMS: count(1_000, 100_000),
  /** Cap on a pod's comment list (the most recent, oldest first). */
  COMMENTS_MAX_ITEMS: count(500, 100_000),
  /** GET /events: open streams per process; beyond it 503 with Retry-After. */
  EVENTS_MAX_STREAMS: count(100, 100_000),
  /** GET /events: how often each stream polls the indexed event log. */
  EVENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /** GET /events: a keep-alive comment after this many seconds without a message. */
  EVENTS_KEEPALIVE_SECONDS: count(15, 3_600),
  /** Webhooks: `false` keeps this process from delivering (another replica does; the routes still work). */
  WEBHOOK_WORKER_ENABLED: z.stringbool().default(true),
  /**
   * Webhooks: `true` lets subscriptions and deliveries reach private addresses (loopback, LAN,
   * link-local): for the devnet and the tests only; production mode refuses it. Default: public
   * addresses only.
   */
  WEBHOOK_ALLOW_PRIVATE: z.stringbool().default(false),
  /** Webhooks: how often the worker looks for new events and due retries. */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Webhooks: a delivery's deadline (connect, send, the receiver's answer). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(10_000),
  /** Webhooks: the first retry's delay; each further failure doubles it, up to WEBHOOK_RETRY_MAX_DELAY_MS. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(10_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(1).max(86_400_000).default(3_600_000),
  /** Webhooks: a subscription failing for this long (since its first failure in a row) is paused. */
  WEBHOOK_RETRY_FOR_MS: z.coerce.number().int().min(1).max(30 * 86_400_000).default(86_400_000),
  /** Webhooks: …or after this many failures in a row. */
  WEBHOOK_MAX_FAILURES: count(50, 10_000),
  /** Webhooks: subscriptions per agent. */
  WEBHOOK_MAX_PER_AGENT: count(20, 1_000),
  /** `off`: no response cache of public reads and no per-user read cache (see api/platform/read-cache.ts). */
  READ_CACHE: z.enum(["on", "off"]).default("on"),
  /** How old (ms) the read version an anonymous public read uses may be; 0: strict (see api/http/read-version.ts). */
  READ_VERSION_MAX_AGE_MS: z.coerce.number().int().min(0).max(1_000).default(0),
};

const chatVariables = {
  /** Named in the sign-in message. */
  CHAT_SERVICE_NAME: z.string().min(1).max(100).default("Data-Market Chat Server"),
  /** Block explorer base; links are `${base}/tx/${hash}`. */
  CHAT_EXPLORER_URL: httpUrl.default(DEFAULT_EXPLORER_URL),
  /** The wallet that sends mints and claims (pays gas and the CORE publishing fee). */
  CHAT_SERVER_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key")
    .optional(),
  /** How long a mint waits for its receipt before answering with `podId: null`. */
  CHAT_MINT_RECEIPT_TIMEOUT_MS: positiveInt.default(20_000),
  /** How long a claim waits for each receipt. */
  CHAT_CLAIM_RECEIPT_TIMEOUT_MS: positiveInt.default(60_000),
  CHAT_POST_SOURCE: z.enum(["oembed", "x-api"]).default("oembed"),
  CHAT_OEMBED_URL: httpUrl.default(DEFAULT_OEMBED_URL),
  CHAT_X_API_URL: httpUrl.default(DEFAULT_X_API_URL),
  CHAT_X_BEARER_TOKEN: z.string().min(1).optional(),
  CHAT_POST_TIMEOUT_MS: positiveInt.default(5_000),
  CHAT_POST_MAX_BYTES: positiveInt.default(256 * 1024),
  CHAT_LLM_BASE_URL: httpUrl.optional(),
  CHAT_LLM_API_KEY: z.string().min(1).optional(),
  CHAT_LLM_MODEL: z.string().min(1).optional(),
  CHAT_LLM_TIMEOUT_MS: positiveInt.default(20_000),
  /** Folder of the project's markdown docs (the assistant's knowledge), relative to the repository root. */
  CHAT_DOCS_DIR: z.string().min(1).default("docs"),
  /** An extra specification file for the assistant, relative to the repository root; none by default. */
  SPEC_FILE: z.string().min(1).optional(),
};

const evalVariables = {
  NODE_ENV: z.string().optional(),
  /** `POST /keys` hands out keys to anyone (rate-limited per IP). Default: on, except with NODE_ENV=production. */
  EVAL_API_KEYS_OPEN_ISSUANCE: z.stringbool().optional(),
  /** Budget of `POST /keys` per client IP and window. */
  EVAL_KEYS_RATE_LIMIT_POINTS: positiveInt.default(5),
  EVAL_KEYS_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(3600),
  EVAL_STORAGE: z.enum(["local", "s3"]).default("local"),
  /** Local store: where attachment bytes (and the generated URL-signing secret) live. */
  EVAL_STORAGE_DIR: z.string().min(1).default(".data/attachments"),
  /** HMAC key of the local store's signed URLs; generated and kept in EVAL_STORAGE_DIR when unset. */
  EVAL_URL_SIGNING_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** The public `{eval_url}` (with its /api/v1 prefix) used to build the local store's URLs; default: the request's own origin + /api/v1. */
  EVAL_PUBLIC_URL: z.url().optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  /** S3-compatible endpoint (MinIO, R2, ...); unset for AWS itself. */
  S3_ENDPOINT: z.url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z.stringbool().default(false),
  /** Prefix of every object key the service writes. */
  S3_PREFIX: z.string().default("eval-attachments/"),
  /** OpenAI-compatible judge: enabled when EVAL_JUDGE_BASE_URL and EVAL_JUDGE_MODEL are set. */
  EVAL_JUDGE_BASE_URL: z.url().optional(),
  EVAL_JUDGE_API_KEY: z.string().min(1).optional(),
  EVAL_JUDGE_MODEL: z.string().min(1).optional(),
  EVAL_JUDGE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(60),
  EVAL_WORKER_ENABLED: z.stringbool().default(true),
  EVAL_WORKER_POLL_SECONDS: z.coerce.number().int().min(1).max(30).default(10),
};

/**
 * The separate service commands (`npm run indexer`, `graphql`, `migrate`, `deploy:protocol`);
 * the API itself reads none of these. Contract addresses and the RPC are read by chain/ and
 * ops/ponder-env.ts, as for the API.
 */
const operatorVariables = {
  /** Port of the local chain `npm start` and `npm run devnet` start (anvil). */
  ANVIL_PORT: port.default(8545),
  /** Root only: where the embedded PostgreSQL lives when the postgres user cannot enter the checkout. */
  DATAMARKET_STATE_DIR: z.string().min(1).default("/var/lib/datamarket"),
  /**
   * Ponder schema of `npm run indexer`; default: derived from the contracts and the indexing code,
   * so a new version gets a new schema (and backfills beside the old one) by itself.
   */
  PONDER_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,44}$/, "must be a lower-case PostgreSQL identifier of at most 45 characters")
    .optional(),
  /** Bind address of `npm run indexer` and `npm run graphql` (Ponder's HTTP server: GraphQL, /ready, /metrics). */
  PONDER_HOST: z.string().min(1).default("127.0.0.1"),
  PONDER_PORT: port.default(42069),
  /** Key that sends `npm run deploy:protocol`'s transactions and becomes the protocol's admin. */
  DEPLOYER_PRIVATE_KEY: z
    .string()
    .refine((value) => isHex(value) && value.length === 66, "must be a 0x-prefixed 32-byte hex key")
    .transform((value) => value as `0x${string}`)
    .optional(),
  /** Receives the performance-pool part of every fee; default: the deployer. */
  PERFORMANCE_POOL_ADDRESS: address.optional(),
  /** Comma-separated accounts whose locks count as governance-locked; default: none. */
  GOVERNANCE_ACCOUNTS: z
    .string()
    .transform((text, ctx) => {
      const list = text.split(",").map((item) => item.trim()).filter(Boolean);
      for (const item of list) {
        if (!isAddress(item, { strict: false })) ctx.addIssue({ code: "custom", message: `${item} is not an address` });
      }
      return list.map((item) => getAddress(item));
    })
    .optional(),
};

const operatorSchema = z.object({
  DATABASE_URL: serverVariables.DATABASE_URL,
  PONDER_VIEWS_SCHEMA: serverVariables.PONDER_VIEWS_SCHEMA,
  LOG_LEVEL: serverVariables.LOG_LEVEL,
  LOG_FORMAT: serverVariables.LOG_FORMAT,
  ...operatorVariables,
});

export type OperatorEnv = z.infer<typeof operatorSchema>;

/** The settings of the service commands from `env`; throws one readable error listing every invalid variable. */
export function parseOperatorEnv(env: RawEnv = processEnv()): OperatorEnv {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = operatorSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  }
  return parsed.data;
}

/**
 * Secrets (and the database URL, which carries a password) that may instead come from a file
 * named by `NAME_FILE` (a container or systemd secret), so that replicas share one value.
 */
export const FILE_VARIABLES = [
  "DATABASE_URL",
  "DATABASE_READ_URL",
  "REDIS_URL",
  "METRICS_TOKEN",
  "IDP_PUBLIC_KEY",
  "STATS_API_KEYS",
  "MODERATOR_PRIVATE_KEY",
  "CHAT_SERVER_PRIVATE_KEY",
  "CHAT_X_BEARER_TOKEN",
  "CHAT_LLM_API_KEY",
  "EVAL_URL_SIGNING_SECRET",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "EVAL_JUDGE_API_KEY",
] as const;

const fileVariables = Object.fromEntries(FILE_VARIABLES.map((name) => [`${name}_FILE`, z.string().optional()])) as {
  [K in `${(typeof FILE_VARIABLES)[number]}_FILE`]: z.ZodOptional<z.ZodString>;
};

/** Production mode: NODE_ENV=production, or a chain that is not on this machine (not the local devnet). */
const modeVariables = {
  /** The chain's RPC URL(s): read here only to tell the local devnet from a real chain. */
  PONDER_RPC_URL_8453: z.string().optional(),
  /**
   * How long a txHash verification keeps asking for a receipt the node does not have yet before it
   * calls the transaction unknown (400): a node behind the head catches up meanwhile. Default 4000
   * on a remote chain (two Base blocks), 0 on the local devnet.
   */
  CHAIN_RECEIPT_WAIT_MS: z.coerce.number().int().min(0).max(60_000).optional(),
};

type Issue = { path: string; message: string };

/** Rules that tie two variables together. */
function crossChecks(e: z.infer<z.ZodObject<typeof chatVariables & typeof evalVariables>>): Issue[] {
  const issues: Issue[] = [];
  if (e.CHAT_LLM_BASE_URL && !e.CHAT_LLM_MODEL) {
    issues.push({ path: "CHAT_LLM_MODEL", message: "required when CHAT_LLM_BASE_URL is set" });
  }
  if (e.CHAT_POST_SOURCE === "x-api" && !e.CHAT_X_BEARER_TOKEN) {
    issues.push({ path: "CHAT_X_BEARER_TOKEN", message: "required when CHAT_POST_SOURCE=x-api" });
  }
  if (e.EVAL_STORAGE === "s3" && !e.S3_BUCKET) issues.push({ path: "S3_BUCKET", message: "required when EVAL_STORAGE=s3" });
  if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
    issues.push({ path: "S3_SECRET_ACCESS_KEY", message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together" });
  }
  if (Boolean(e.EVAL_JUDGE_BASE_URL) !== Boolean(e.EVAL_JUDGE_MODEL)) {
    issues.push({ path: "EVAL_JUDGE_MODEL", message: "EVAL_JUDGE_BASE_URL and EVAL_JUDGE_MODEL go together" });
  }
  return issues;
}

const allVariables = {
  ...serverVariables,
  ...idpVariables,
  ...platformVariables,
  ...chatVariables,
  ...evalVariables,
  ...fileVariables,
  ...modeVariables,
};

const envSchema = z
  .object(allVariables)
  .superRefine((env, ctx) => {
    for (const { path, message } of crossChecks(env)) ctx.addIssue({ code: "custom", path: [path], message });
  });

export type Env = z.infer<typeof envSchema>;

/** Every variable the API reads (.env.example lists each; a test holds them together). */
export const API_VARIABLES = Object.keys({ ...allVariables, ...operatorVariables });

const parsedEnvs = new WeakMap<object, Env>();

/** `NAME_FILE` read into `NAME` (trailing newline dropped); both set, or an unreadable file, is a problem. */
function readSecretFiles(defined: Record<string, string>): { values: Record<string, string>; problems: string[] } {
  const values = { ...defined };
  const problems: string[] = [];
  for (const name of FILE_VARIABLES) {
    const file = defined[`${name}_FILE`];
    if (file === undefined) continue;
    if (defined[name] !== undefined) {
      problems.push(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      const value = fs.readFileSync(file, "utf8").replace(/\r?\n$/, "");
      if (value === "") problems.push(`${name}_FILE: ${file} is empty`);
      else values[name] = value;
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  return { values, problems };
}

/**
 * The API's settings from `env` (default: process.env), parsed once per object. Throws one readable
 * error listing every invalid variable.
 */
export function parseEnv(env: RawEnv = processEnv()): Env {
  const cached = parsedEnvs.get(env);
  if (cached) return cached;
  const defined = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""),
  );
  const { values, problems } = readSecretFiles(defined);
  const parsed = envSchema.safeParse(values);
  if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  if (problems.length > 0 || !parsed.success) throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  parsedEnvs.set(env, parsed.data);
  return parsed.data;
}

function isLoopbackName(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || bare.startsWith("127.") || bare.endsWith(".localhost") || bare === "::ffff:127.0.0.1";
}

/** Why the process runs in production mode, or undefined on a local setup (the devnet's zero-configuration start). */
export function productionReason(env: RawEnv = processEnv()): string | undefined {
  const e = parseEnv(env);
  if (e.NODE_ENV === "production") return "NODE_ENV=production";
  const rpc = e.PONDER_RPC_URL_8453?.split(",").map((url) => url.trim()).find(Boolean);
  if (rpc === undefined) return undefined;
  let host: string;
  try {
    host = new URL(rpc).hostname;
  } catch {
    return "PONDER_RPC_URL_8453 is not a local devnet";
  }
  return isLoopbackName(host) ? undefined : "PONDER_RPC_URL_8453 is not a local devnet";
}

/**
 * Every setting production mode needs that `env` leaves to a local default, each with what the
 * default would do; empty outside production mode. `provided` names variables the caller sets
 * itself (the launcher gives the API its own indexer's URL).
 */
export function productionProblems(env: RawEnv = processEnv(), provided: readonly string[] = []): string[] {
  if (productionReason(env) === undefined) return [];
  const e = parseEnv(env);
  const set = (name: string) => provided.includes(name) || (env[name] ?? "") !== "" || (env[`${name}_FILE`] ?? "") !== "";
  const problems: string[] = [];
  if (!set("DATABASE_URL")) problems.push("DATABASE_URL (else an embedded PostgreSQL keeps the data in .data/postgres)");
  if (!set("PONDER_URL")) problems.push("PONDER_URL (else whatever indexer answers on the default http://127.0.0.1:42069 is read)");
  if (!e.IDP_JWKS_URL && !e.IDP_PUBLIC_KEY) {
    problems.push(`IDP_JWKS_URL or IDP_PUBLIC_KEY (else cookies signed by a key generated into ${e.IDP_LOCAL_KEY_FILE} are trusted)`);
  }
  if (!e.STATS_API_KEYS) problems.push(`STATS_API_KEYS or STATS_API_KEYS_FILE (else a key is generated into ${e.STATS_API_KEY_FILE}, one per machine)`);
  if (e.EVAL_STORAGE === "local") {
    if (!e.EVAL_URL_SIGNING_SECRET) {
      problems.push(`EVAL_URL_SIGNING_SECRET or EVAL_URL_SIGNING_SECRET_FILE (else a secret is generated into ${e.EVAL_STORAGE_DIR}, one per machine)`);
    }
    if (!e.EVAL_PUBLIC_URL) problems.push("EVAL_PUBLIC_URL (else upload URLs are signed for whatever Host a request names)");
  }
  if (e.WEBHOOK_ALLOW_PRIVATE) problems.push("WEBHOOK_ALLOW_PRIVATE unset or false (true lets any agent aim webhook deliveries at private addresses)");
  if (!e.METRICS_TOKEN && !isLoopbackName(e.HOST)) {
    problems.push(`METRICS_TOKEN or METRICS_TOKEN_FILE (HOST=${e.HOST} is not a loopback address)`);
  }
  return problems;
}

/** Throws one error naming every missing production setting (see productionProblems). */
export function assertProductionSafe(env: RawEnv = processEnv(), provided: readonly string[] = []): void {
  const problems = productionProblems(env, provided);
  if (problems.length === 0) return;
  throw new Error(
    `Production mode (${productionReason(env)}) refuses local defaults; set: ${problems.join("; ")}. See docs/operations.md.`,
  );
}

/** Only the variables that are set (not empty): what chain/ reads for the RPC and contract addresses. */
export function definedEnv(env: RawEnv = processEnv()): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
}
