import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type pg from "pg";
import type { OffchainDb } from "../db/client";
import type { ApiDeps } from "../deps";
import { walletSession, type WalletAddress } from "../http/auth/wallet-session";
import { serviceUnavailable, unauthorized } from "../http/errors";
import { requireChain } from "../http/readiness";
import type { AppEnv } from "../http/types";
import type { ChatConfig } from "./config";
import type { ChatChain } from "./services/chain";
import type { Assistant } from "./services/assistant/assistant";
import type { KnowledgeBase } from "./services/assistant/knowledge";
import type { Llm } from "./services/assistant/llm";
import type { PodLocks } from "./services/pod-locks";
import type { PostFetcher } from "./services/post-fetcher";
import type { SlopChecker } from "./services/slop-check";
import type { ServerWallet } from "./services/server-wallet";

/** Everything the chat server's route handlers use. */
export interface ChatContext {
  config: ChatConfig;
  db: OffchainDb;
  pool: pg.Pool;
  logger: Logger;
  viewsSchema: string;
  chain: ChatChain | undefined;
  postFetcher: PostFetcher;
  slopChecker: SlopChecker;
  llm: Llm | undefined;
  knowledge: KnowledgeBase;
  assistant: Assistant;
  podLocks: PodLocks;
  now: () => Date;
  /** Wallet session auth, then the per-identity rate limit. */
  auth: MiddlewareHandler<AppEnv>[];
  /** 503 until the indexer's views exist. */
  indexed: MiddlewareHandler;
}

export function chatAuthMiddleware(
  deps: Pick<ApiDeps, "db">,
  identityLimit: MiddlewareHandler<AppEnv>,
  now: () => Date,
): MiddlewareHandler<AppEnv>[] {
  return [walletSession(deps.db, { now }) as unknown as MiddlewareHandler<AppEnv>, identityLimit];
}

/** The signed-in wallet (lower case), set by the wallet-session middleware. */
export function walletOf(c: Context<AppEnv>): WalletAddress {
  const identity = c.var.identity;
  if (identity?.kind !== "wallet") throw unauthorized();
  return identity.id as WalletAddress;
}

export function indexedMiddleware(pool: pg.Pool, viewsSchema: string): MiddlewareHandler {
  return requireChain(pool, viewsSchema);
}

/** The chain, or 503 when none is configured. */
export function chainOf(ctx: ChatContext): ChatChain {
  if (!ctx.chain) throw serviceUnavailable("Chain not configured");
  return ctx.chain;
}

/** The server wallet, or 503 when no key is configured. */
export function serverWalletOf(ctx: ChatContext): { chain: ChatChain; wallet: ServerWallet } {
  const chain = chainOf(ctx);
  if (!chain.wallet) throw serviceUnavailable("Server wallet not configured");
  return { chain, wallet: chain.wallet };
}

export function explorerTxUrl(ctx: ChatContext, txHash: string): string {
  return `${ctx.config.explorerUrl}/tx/${txHash}`;
}
