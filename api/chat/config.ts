import { existsSync } from "node:fs";
import path from "node:path";
import { isHex, type Hex } from "viem";
import { DEFAULT_EXPLORER_URL, DEFAULT_OEMBED_URL, DEFAULT_X_API_URL, definedEnv, parseEnv, processEnv, type RawEnv } from "../env";
import { loadProtocolConfig, type ProtocolConfig } from "../../chain/protocol-config";
import { localRoleKey } from "../../chain/local-accounts";
import { PROJECT_ROOT } from "../../ops/project-root";

/** The repository root (also when running from the build in dist/). */
export const REPO_ROOT = PROJECT_ROOT;

export { DEFAULT_EXPLORER_URL, DEFAULT_OEMBED_URL, DEFAULT_X_API_URL };

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
  /** Absolute path of SPEC_FILE when set and the file exists; the assistant always indexes docsDir (docs/*.md). */
  specFile: string | undefined;
}

/**
 * The chat server's own settings (see docs/chat-server.md), parsed from `env`. Throws one
 * readable error listing every invalid variable. A missing chain is not an error: routes that
 * need it answer 503 until it is configured.
 */
export function loadChatConfig(
  env: RawEnv = processEnv(),
  /** A given protocol replaces the environment's; null means "no chain" (routes that need one answer 503). */
  options: { protocol?: ProtocolConfig | null } = {},
): ChatConfig {
  const e = parseEnv(env);
  let protocol = options.protocol ?? undefined;
  let protocolError: string | undefined = options.protocol === null ? "no chain configured" : undefined;
  if (options.protocol === undefined) {
    try {
      protocol = loadProtocolConfig(definedEnv(env));
    } catch (error) {
      protocolError = error instanceof Error ? error.message : String(error);
    }
  }

  let serverPrivateKey = e.CHAT_SERVER_PRIVATE_KEY as Hex | undefined;
  let serverWalletIsDevnetDefault = false;
  if (!serverPrivateKey && protocol?.local) {
    serverPrivateKey = localRoleKey("serverWallet");
    serverWalletIsDevnetDefault = true;
  }
  if (serverPrivateKey && !isHex(serverPrivateKey)) serverPrivateKey = undefined;

  const specPath = e.SPEC_FILE === undefined ? undefined : path.resolve(REPO_ROOT, e.SPEC_FILE);
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
    specFile: specPath !== undefined && existsSync(specPath) ? specPath : undefined,
  };
}
