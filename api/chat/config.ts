import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isHex, type Hex } from "viem";
import { z } from "zod";
import { loadProtocolConfig, type ProtocolConfig } from "../../chain/protocol-config";
import { roleAccount } from "../../devnet/accounts";

/** The repository root (api/chat/ is two levels down). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export const DEFAULT_EXPLORER_URL = "https://basescan.org";
export const DEFAULT_OEMBED_URL = "https://publish.twitter.com/oembed";
export const DEFAULT_X_API_URL = "https://api.x.com/2";
export const DEFAULT_SPEC_FILE = "../shared/spec/interface-spec.md";

const positiveInt = z.coerce.number().int().positive();
const httpUrl = z.url({ protocol: /^https?$/ });

const chatEnvironmentSchema = z.object({
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
  /** Folder of the project's markdown docs, relative to the repository root. */
  CHAT_DOCS_DIR: z.string().min(1).default("docs"),
  /** The interface specification, relative to the repository root; skipped when missing. */
  SPEC_FILE: z.string().min(1).default(DEFAULT_SPEC_FILE),
});

export interface PostSourceConfig {
  kind: "oembed" | "x-api";
  oembedUrl: string;
  xApiUrl: string;
  xBearerToken: string | undefined;
  timeoutMs: number;
  maxBytes: number;
}

export interface LlmConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

export interface ChatConfig {
  serviceName: string;
  explorerUrl: string;
  /** Undefined when no chain is configured (no RPC and no devnet deployments file); see `protocolError`. */
  protocol: ProtocolConfig | undefined;
  protocolError: string | undefined;
  /** Undefined when unset and the chain is not local: mint and claim answer 503. */
  serverPrivateKey: Hex | undefined;
  /** True when the key is the devnet's server wallet, chosen because none was configured. */
  serverWalletIsDevnetDefault: boolean;
  mintReceiptTimeoutMs: number;
  claimReceiptTimeoutMs: number;
  postSource: PostSourceConfig;
  /** Undefined: the built-in composer and heuristic slop check are used. */
  llm: LlmConfig | undefined;
  docsDir: string;
  /** Absolute path of the spec when the file exists. */
  specFile: string | undefined;
}

function devnetServerKey(): Hex {
  const key = roleAccount("serverWallet").getHdKey().privateKey;
  if (!key) throw new Error("devnet server wallet has no private key");
  return `0x${Buffer.from(key).toString("hex")}`;
}

/**
 * The chat server's own settings (see docs/chat-server.md), parsed from `env`. Throws one
 * readable error listing every invalid variable. A missing chain is not an error: routes that
 * need it answer 503 until it is configured.
 */
export function loadChatConfig(
  env: Record<string, string | undefined> = process.env,
  /** A given protocol replaces the environment's; null means "no chain" (routes that need one answer 503). */
  options: { protocol?: ProtocolConfig | null } = {},
): ChatConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = chatEnvironmentSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid chat-server configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  if (e.CHAT_LLM_BASE_URL && !e.CHAT_LLM_MODEL) {
    throw new Error("Invalid chat-server configuration: CHAT_LLM_MODEL is required when CHAT_LLM_BASE_URL is set");
  }
  if (e.CHAT_POST_SOURCE === "x-api" && !e.CHAT_X_BEARER_TOKEN) {
    throw new Error("Invalid chat-server configuration: CHAT_X_BEARER_TOKEN is required when CHAT_POST_SOURCE=x-api");
  }

  let protocol = options.protocol ?? undefined;
  let protocolError: string | undefined = options.protocol === null ? "no chain configured" : undefined;
  if (options.protocol === undefined) {
    try {
      protocol = loadProtocolConfig(defined as NodeJS.ProcessEnv);
    } catch (error) {
      protocolError = error instanceof Error ? error.message : String(error);
    }
  }

  let serverPrivateKey = e.CHAT_SERVER_PRIVATE_KEY as Hex | undefined;
  let serverWalletIsDevnetDefault = false;
  if (!serverPrivateKey && protocol?.local) {
    serverPrivateKey = devnetServerKey();
    serverWalletIsDevnetDefault = true;
  }
  if (serverPrivateKey && !isHex(serverPrivateKey)) serverPrivateKey = undefined;

  const specPath = path.resolve(REPO_ROOT, e.SPEC_FILE);
  return {
    serviceName: e.CHAT_SERVICE_NAME,
    explorerUrl: e.CHAT_EXPLORER_URL.replace(/\/+$/, ""),
    protocol,
    protocolError,
    serverPrivateKey,
    serverWalletIsDevnetDefault,
    mintReceiptTimeoutMs: e.CHAT_MINT_RECEIPT_TIMEOUT_MS,
    claimReceiptTimeoutMs: e.CHAT_CLAIM_RECEIPT_TIMEOUT_MS,
    postSource: {
      kind: e.CHAT_POST_SOURCE,
      oembedUrl: e.CHAT_OEMBED_URL,
      xApiUrl: e.CHAT_X_API_URL.replace(/\/+$/, ""),
      xBearerToken: e.CHAT_X_BEARER_TOKEN,
      timeoutMs: e.CHAT_POST_TIMEOUT_MS,
      maxBytes: e.CHAT_POST_MAX_BYTES,
    },
    llm: e.CHAT_LLM_BASE_URL
      ? {
          baseUrl: e.CHAT_LLM_BASE_URL.replace(/\/+$/, ""),
          // Local OpenAI-compatible servers often need no key; the client still wants a string.
          apiKey: e.CHAT_LLM_API_KEY ?? "not-needed",
          model: e.CHAT_LLM_MODEL!,
          timeoutMs: e.CHAT_LLM_TIMEOUT_MS,
        }
      : undefined,
    docsDir: path.resolve(REPO_ROOT, e.CHAT_DOCS_DIR),
    specFile: existsSync(specPath) ? specPath : undefined,
  };
}
