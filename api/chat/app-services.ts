import type { RouteConfig } from "@hono/zod-openapi";
import type { Logger } from "pino";
import { serviceUnavailable } from "../http/errors";
import type { AppRouteHandler, ServicesEnv, SurfaceServices } from "../http/types";
import type { LedgerChainAccess } from "../ledger/chain";
import type { ChatConfig } from "./config";
import type { ChatChain } from "./services/chain";
import type { Assistant } from "./services/assistant/assistant";
import type { KnowledgeBase } from "./services/assistant/knowledge";
import type { Llm } from "./services/assistant/llm";
import type { PodLocks } from "./services/pod-locks";
import type { PostFetcher } from "./services/post-fetcher";
import type { SlopChecker } from "./services/slop-check";
import type { ServerWallet } from "./services/server-wallet";

/** Everything the chat server's handlers use: `c.get("services")`, set once per app. */
export interface ChatServices extends SurfaceServices {
  config: ChatConfig;
  logger: Logger;
  chain: ChatChain | undefined;
  postFetcher: PostFetcher;
  slopChecker: SlopChecker;
  llm: Llm | undefined;
  knowledge: KnowledgeBase;
  assistant: Assistant;
  podLocks: PodLocks;
  now: () => Date;
}

export type ChatEnv = ServicesEnv<ChatServices>;

/** A chat server handler typed by its route (the route's `walletAuth` types `c.get("wallet")`). */
export type ChatHandler<R extends RouteConfig> = AppRouteHandler<R, ChatEnv>;

/** The chain, or 503 when none is configured. */
export function chainOf(ctx: ChatServices): ChatChain {
  if (!ctx.chain) throw serviceUnavailable("Chain not configured");
  return ctx.chain;
}

/** The server wallet, or 503 when no key is configured. */
export function serverWalletOf(ctx: ChatServices): { chain: ChatChain; wallet: ServerWallet } {
  const chain = chainOf(ctx);
  if (!chain.wallet) throw serviceUnavailable("Server wallet not configured");
  return { chain, wallet: chain.wallet };
}

export function explorerTxUrl(ctx: ChatServices, txHash: string): string {
  return `${ctx.config.explorerUrl}/tx/${txHash}`;
}

/**
 * The chain as the ledger reads it, for the mints the server wallet sends: the mint is checked
 * against its receipt as soon as it is mined, so one confirmation.
 */
export function ledgerChainAccessOf(chain: ChatChain): LedgerChainAccess {
  const { podManager, subnetManager, coreToken } = chain.addresses;
  return {
    chain: () => ({
      client: chain.publicClient,
      protocol: {
        contracts: {
          PodManager: { address: podManager },
          SubnetManager: { address: subnetManager },
          CoreToken: { address: coreToken },
        },
      },
    }),
    config: { txMinConfirmations: 1 },
  };
}
