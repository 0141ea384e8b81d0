import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();

const environmentSchema = z.object({
  /** Unset: the API starts the project's embedded PostgreSQL server (ops/postgres). */
  DATABASE_URL: z.url().optional(),
  PLATFORM_PORT: port.default(3000),
  CHAT_PORT: port.default(3001),
  EVAL_PORT: port.default(3002),
  PONDER_URL: z.url().default("http://127.0.0.1:42069"),
  PONDER_VIEWS_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "must be a lower-case PostgreSQL identifier")
    .default("chain"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  RATE_LIMIT_POINTS: positiveInt.default(120),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  /** When true, the client IP is the last X-Forwarded-For entry, the one the nearest proxy appended; only behind a proxy. */
  TRUST_PROXY: z.stringbool().default(false),
});

export type LogLevel = z.infer<typeof environmentSchema>["LOG_LEVEL"];

export interface ApiConfig {
  databaseUrl: string | undefined;
  ports: { platform: number; chat: number; eval: number };
  ponderUrl: string;
  ponderViewsSchema: string;
  logLevel: LogLevel;
  rateLimit: { points: number; windowSeconds: number };
  trustProxy: boolean;
}

/** Parses the API's settings from `env`; throws one readable error listing every invalid variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  // Empty strings count as unset, as they do in most .env tooling.
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = environmentSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    ports: { platform: e.PLATFORM_PORT, chat: e.CHAT_PORT, eval: e.EVAL_PORT },
    ponderUrl: e.PONDER_URL.replace(/\/+$/, ""),
    ponderViewsSchema: e.PONDER_VIEWS_SCHEMA,
    logLevel: e.LOG_LEVEL,
    rateLimit: { points: e.RATE_LIMIT_POINTS, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS },
    trustProxy: e.TRUST_PROXY,
  };
}
