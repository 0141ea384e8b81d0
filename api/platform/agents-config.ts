import { z } from "zod";
import type { PlatformDeps } from "./context";

/** A subscription package sold for every public datanet; its price is the datanet's on-chain CORE access fee. */
export interface SubscriptionPackageConfig {
  id: string;
  subscriptionDays: number;
}

export interface AgentsConfig {
  /** SUBSCRIPTION_PACKAGES: JSON list of `{ id, subscriptionDays }`. */
  subscriptionPackages: SubscriptionPackageConfig[];
  /** ORDER_MIN_CONFIRMATIONS: confirmations a package payment needs before its order is VERIFIED. */
  orderMinConfirmations: number;
  /** DATASET_MAX_ITEMS: cap on each array of a dataset download. */
  datasetMaxItems: number;
  /** PUBLIC_VOTES_MAX_ITEMS: cap on the public vote list of one pod and epoch. */
  publicVotesMaxItems: number;
  /** COMMENTS_MAX_ITEMS: cap on a pod's comment list (the most recent, oldest first). */
  commentsMaxItems: number;
}

export const DEFAULT_SUBSCRIPTION_PACKAGES: SubscriptionPackageConfig[] = [{ id: "monthly", subscriptionDays: 30 }];

const packageSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "package ids are 1-64 letters, digits, '-' or '_'"),
  subscriptionDays: z.number().int().min(1).max(3650),
});

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
      .array(packageSchema)
      .min(1)
      .refine((list) => new Set(list.map((p) => p.id)).size === list.length, "package ids must be unique"),
  );

const count = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

const agentsEnvSchema = z.object({
  SUBSCRIPTION_PACKAGES: packagesSchema.optional(),
  ORDER_MIN_CONFIRMATIONS: count(1, 1_000),
  DATASET_MAX_ITEMS: count(1_000, 100_000),
  PUBLIC_VOTES_MAX_ITEMS: count(1_000, 100_000),
  COMMENTS_MAX_ITEMS: count(500, 100_000),
});

/** Engagement and agent settings of the Platform API; throws one readable error listing every invalid variable. */
export function loadAgentsConfig(env: Record<string, string | undefined> = process.env): AgentsConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = agentsEnvSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    subscriptionPackages: e.SUBSCRIPTION_PACKAGES ?? DEFAULT_SUBSCRIPTION_PACKAGES,
    orderMinConfirmations: e.ORDER_MIN_CONFIRMATIONS,
    datasetMaxItems: e.DATASET_MAX_ITEMS,
    publicVotesMaxItems: e.PUBLIC_VOTES_MAX_ITEMS,
    commentsMaxItems: e.COMMENTS_MAX_ITEMS,
  };
}

/** `PlatformDeps` plus optional injected engagement/agent settings (tests). */
export type AgentsDeps = PlatformDeps & { agentsConfig?: AgentsConfig };

const loaded = new WeakMap<object, AgentsConfig>();

/** The injected settings, else the ones of process.env (loaded once per deps object). */
export function agentsConfigOf(deps: AgentsDeps): AgentsConfig {
  if (deps.agentsConfig) return deps.agentsConfig;
  let config = loaded.get(deps);
  if (!config) loaded.set(deps, (config = loadAgentsConfig(process.env)));
  return config;
}
