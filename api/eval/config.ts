import { z } from "zod";

const positiveInt = z.coerce.number().int().positive();

const environmentSchema = z
  .object({
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
  })
  .superRefine((env, ctx) => {
    if (env.EVAL_STORAGE === "s3" && !env.S3_BUCKET) {
      ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "required when EVAL_STORAGE=s3" });
    }
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: "custom",
        path: ["S3_SECRET_ACCESS_KEY"],
        message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together",
      });
    }
    if (Boolean(env.EVAL_JUDGE_BASE_URL) !== Boolean(env.EVAL_JUDGE_MODEL)) {
      ctx.addIssue({
        code: "custom",
        path: ["EVAL_JUDGE_MODEL"],
        message: "EVAL_JUDGE_BASE_URL and EVAL_JUDGE_MODEL go together",
      });
    }
  });

export interface S3StorageConfig {
  kind: "s3";
  bucket: string;
  region: string;
  endpoint: string | undefined;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  prefix: string;
}

export interface LocalStorageConfig {
  kind: "local";
  dir: string;
}

export interface JudgeConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutSeconds: number;
}

export interface EvalConfig {
  keys: { openIssuance: boolean; rateLimit: { points: number; windowSeconds: number } };
  storage: LocalStorageConfig | S3StorageConfig;
  urlSigningSecret: string | undefined;
  /** `{eval_url}` as clients reach it, without a trailing slash; undefined = from the request. */
  publicUrl: string | undefined;
  judge: JudgeConfig | undefined;
  worker: { enabled: boolean; pollSeconds: number };
}

/** Parses the Evaluation API's own settings from `env`; throws one readable error listing every invalid variable. */
export function loadEvalConfig(env: Record<string, string | undefined> = process.env): EvalConfig {
  // Empty strings count as unset, as in api/config.ts.
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = environmentSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid evaluation configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  const storage: EvalConfig["storage"] =
    e.EVAL_STORAGE === "s3"
      ? {
          kind: "s3",
          bucket: e.S3_BUCKET!,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT,
          credentials:
            e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
              ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
              : undefined,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
          prefix: e.S3_PREFIX,
        }
      : { kind: "local", dir: e.EVAL_STORAGE_DIR };
  return {
    keys: {
      openIssuance: e.EVAL_API_KEYS_OPEN_ISSUANCE ?? e.NODE_ENV !== "production",
      rateLimit: { points: e.EVAL_KEYS_RATE_LIMIT_POINTS, windowSeconds: e.EVAL_KEYS_RATE_LIMIT_WINDOW_SECONDS },
    },
    storage,
    urlSigningSecret: e.EVAL_URL_SIGNING_SECRET,
    publicUrl: e.EVAL_PUBLIC_URL?.replace(/\/+$/, ""),
    judge:
      e.EVAL_JUDGE_BASE_URL && e.EVAL_JUDGE_MODEL
        ? {
            baseUrl: e.EVAL_JUDGE_BASE_URL.replace(/\/+$/, ""),
            apiKey: e.EVAL_JUDGE_API_KEY,
            model: e.EVAL_JUDGE_MODEL,
            timeoutSeconds: e.EVAL_JUDGE_TIMEOUT_SECONDS,
          }
        : undefined,
    worker: { enabled: e.EVAL_WORKER_ENABLED, pollSeconds: e.EVAL_WORKER_POLL_SECONDS },
  };
}
