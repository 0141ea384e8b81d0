import { parseEnv, processEnv, type RawEnv } from "../env";

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

/** The Evaluation API's own settings (see api/env.ts); throws one readable error listing every invalid variable. */
export function loadEvalConfig(env: RawEnv = processEnv()): EvalConfig {
  const e = parseEnv(env);
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
