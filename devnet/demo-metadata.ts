/**
 * Demo metadata for the seeded devnet: the seed (devnet/seed.ts) publishes datanets and mints pods
 * on chain only, and the Platform API lists only datanets and pods with off-chain metadata. This
 * step gives them some, as their owners would: for each seeded datanet and pod it signs in as the
 * owner (a cookie of the local identity provider for the owner's devnet wallet), creates a draft
 * through the real HTTP routes with the project's typed client (client/, generated from the
 * OpenAPI document) and links it with the seed's own transaction (publish, mint, republish), so the
 * drafts, the on-chain verification and the public lists all run as for a client.
 *
 * Idempotent: an item whose token already has metadata (the caller's or anyone's) is left alone,
 * a draft left unlinked by an earlier run is reused, and a transaction the API reports as already
 * used counts as done. Pods minted by another wallet for their owner (the server wallet's mint for
 * voter2) are skipped: their mint was not sent by the owner, so only the chat server can link them.
 */
import { localIdpKeyPair, signLocalIdpToken, IDP_COOKIE } from "../api/http/auth/idp-cookie";
// the sources, not the package: its built dist/ exists only after `npm run build:client`
import { createPlatformClient } from "../client/index";
import type { Role } from "./accounts";
import type { SeededPod, SeededSubnet, SeedSummary } from "./seed";
import { parseEnv } from "../api/env";

export type DemoMetadataOptions = {
  /** The Platform API's origin, e.g. `http://127.0.0.1:3000` (the `/api/v1` prefix is added). */
  platformUrl: string;
  summary: Pick<SeedSummary, "seeded">;
  /** The local identity provider's key file (default: IDP_LOCAL_KEY_FILE, else the API's default). */
  idpKeyFile?: string;
};

/** linked: by this run; existing: already had metadata; skipped: cannot be linked by its owner; failed: see `error`. */
export type DemoItemStatus = "linked" | "existing" | "skipped" | "failed";

export type DemoItemResult = { tokenId: number; owner: Role; name: string; id?: string; status: DemoItemStatus; reason?: string };

export type DemoMetadataResult = { subnets: DemoItemResult[]; pods: DemoItemResult[] };

// ---- the demo content ----

export type SubnetContent = {
  subnetCreatorType: "individual" | "team";
  subnetName: string;
  subnetDescription: string;
  onboardingPublishers: string;
  onboardingVoters: string;
  subnetGoal: string;
  imageURL: string;
};

export type PodContent = {
  podName: string;
  url: string;
  platform: string;
  category: string;
  podDescription: string;
  imageURL?: string;
  pdfURL?: string;
};

/** By position in the seed's list of datanets. */
const SUBNETS: SubnetContent[] = [
  {
    subnetCreatorType: "team",
    subnetName: "Onchain research",
    subnetDescription:
      "Research articles and measurement studies on public blockchains: fee markets, MEV, stablecoin flows and protocol security, each with its data and method.",
    onboardingPublishers: "Publish one article or report per pod, with a link to its data and the method used to collect it.",
    onboardingVoters: "Vote on rigour, reproducibility and relevance; vote down summaries without sources.",
    subnetGoal: "A curated library of reproducible onchain research",
    imageURL: "https://example.org/images/onchain-research.png",
  },
  {
    subnetCreatorType: "team",
    subnetName: "AI datasets",
    subnetDescription:
      "Openly licensed datasets for training and evaluating AI models: text corpora, benchmarks and labelled collections, documented with their licence and provenance.",
    onboardingPublishers: "One dataset per pod: link the download page, state the licence, the size and how the data was collected.",
    onboardingVoters: "Vote on documentation, licensing clarity, label quality and usefulness for training or evaluation.",
    subnetGoal: "Well-documented open data for AI",
    imageURL: "https://example.org/images/ai-datasets.png",
  },
  {
    subnetCreatorType: "individual",
    subnetName: "Climate data",
    subnetDescription:
      "Climate and environmental measurements: temperature records, sea ice extent, emissions inventories and satellite products, with their sources and coverage.",
    onboardingPublishers: "Publish one dataset or data product per pod, with its source agency, period covered and update cadence.",
    onboardingVoters: "Vote on the source's reliability, coverage and how easy the data is to reuse.",
    subnetGoal: "Trustworthy open climate data in one place",
    imageURL: "https://example.org/images/climate-data.png",
  },
];

/** By position in the seed's list of pods. */
const PODS: PodContent[] = [
  {
    podName: "MEV on Base: a measurement study",
    url: "https://example.org/research/mev-on-base",
    platform: "web",
    category: "research article",
    podDescription: "Twelve months of sandwich and arbitrage activity on Base, with the labelled transaction dataset used in the study.",
    pdfURL: "https://example.org/research/mev-on-base.pdf",
  },
  {
    podName: "Stablecoin flows between L2s, 2024",
    url: "https://example.org/research/stablecoin-flows-2024",
    platform: "web",
    category: "research article",
    podDescription: "How USDC and other stablecoins moved between rollups in 2024: bridge volumes, daily netflows and the queries behind them.",
    imageURL: "https://example.org/images/stablecoin-flows.png",
  },
  {
    podName: "Open instruction-tuning corpus v2",
    url: "https://example.org/datasets/instruction-corpus-v2",
    platform: "web",
    category: "dataset",
    podDescription: "120k permissively licensed instruction and response pairs, deduplicated, with per-source licences and a held-out test split.",
  },
  {
    podName: "Gas costs of smart-contract wallets",
    url: "https://example.org/research/smart-wallet-gas",
    platform: "web",
    category: "research article",
    podDescription: "What account abstraction costs per operation: gas of ERC-4337 user operations against plain transfers, by wallet implementation.",
  },
];

function subnetContent(index: number, tokenId: number): SubnetContent {
  return (
    SUBNETS[index] ?? {
      subnetCreatorType: "team",
      subnetName: `Demo datanet ${tokenId}`,
      subnetDescription: `Datanet ${tokenId} of the local demo data, published by the devnet seed.`,
      onboardingPublishers: "Publish one curated item per pod, with its source.",
      onboardingVoters: "Vote on quality and relevance.",
      subnetGoal: "Demo data",
      imageURL: "https://example.org/images/demo-datanet.png",
    }
  );
}

function podContent(index: number, tokenId: number): PodContent {
  return (
    PODS[index] ?? {
      podName: `Demo pod ${tokenId}`,
      url: `https://example.org/pods/${tokenId}`,
      platform: "web",
      category: "dataset",
      podDescription: `Pod ${tokenId} of the local demo data, minted by the devnet seed.`,
    }
  );
}

// ---- HTTP: the typed Platform API client (client/) ----

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly apiMessage: string,
    where: string,
  ) {
    super(`${where}: ${status} ${apiMessage}`);
  }
}

/** The API's 400s that mean "this transaction or token already backs a record". */
const ALREADY_DONE = [/Transaction already used/i, /already linked/i, /already (published|minted)/i];
const isAlreadyDone = (error: unknown) =>
  error instanceof ApiError && error.status === 400 && ALREADY_DONE.some((pattern) => pattern.test(error.apiMessage));

export type Client = ReturnType<typeof createPlatformClient>;

/** `fetch` that, over the rate limit, waits as told (briefly) and tries again, a few times. */
async function fetchWaitingOn429(request: Request): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(request.clone());
    if (response.status !== 429 || attempt >= 4) return response;
    const seconds = Math.min(Number(response.headers.get("Retry-After")) || 1, 15);
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

function apiClient(platformUrl: string, cookie?: string): Client {
  return createPlatformClient(platformUrl, { headers: cookie ? { Cookie: cookie } : {}, fetch: fetchWaitingOn429 });
}

/** The `data` of a success answer; any other answer throws an ApiError with the API's flat error message. */
function dataOf<T>(where: string, result: { data?: { data: T }; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data.data;
  const { status, statusText } = result.response;
  const message = (result.error as { error?: string } | undefined)?.error ?? statusText;
  const hint = status === 401 ? " (the API does not accept the local identity provider's cookies: IDP_JWKS_URL or IDP_PUBLIC_KEY set?)" : "";
  throw new ApiError(status, `${message}${hint}`, where);
}

/** Like `dataOf`, but a 404 is `undefined`. */
function dataOrNotFound<T>(where: string, result: { data?: { data: T }; error?: unknown; response: Response }): T | undefined {
  return result.response.status === 404 ? undefined : dataOf(where, result);
}

// ---- sessions: a user signed in with the local identity provider ----

export type PlatformSessions = {
  anonymous: Client;
  /** A client with the cookie of user `sub` whose wallet is `wallet` (one per subject, reused). */
  as(sub: string, wallet: string, username: string): Promise<Client>;
  /** The IdP token of a subject signed in by `as` (the value of its cookie). */
  tokenOf(sub: string): string | undefined;
};

/** Clients of the Platform API at `platformUrl`, signed in with the local IdP key in `idpKeyFile` (default: IDP_LOCAL_KEY_FILE). */
export async function platformSessions(platformUrl: string, idpKeyFile?: string): Promise<PlatformSessions> {
  const env = parseEnv();
  const keyFile = idpKeyFile ?? env.IDP_LOCAL_KEY_FILE;
  const { privateJwk } = await localIdpKeyPair(keyFile);
  const sessions = new Map<string, { client: Client; token: string }>();
  return {
    anonymous: apiClient(platformUrl),
    async as(sub, wallet, username) {
      let session = sessions.get(sub);
      if (!session) {
        const token = await signLocalIdpToken(
          { sub, wallet, username },
          {
            privateJwk,
            issuer: env.IDP_ISSUER,
            audience: env.IDP_AUDIENCE,
            expiresIn: "1h",
          },
        );
        session = { client: apiClient(platformUrl, `${IDP_COOKIE}=${token}`), token };
        sessions.set(sub, session);
      }
      return session.client;
    },
    tokenOf: (sub) => sessions.get(sub)?.token,
  };
}

// ---- the step ----

/** Creates (or reuses) drafts for the seeded datanets and pods and links them with the seed's transactions. */
export async function publishDemoMetadata(options: DemoMetadataOptions): Promise<DemoMetadataResult> {
  const { seeded } = options.summary;
  const sessions = await platformSessions(options.platformUrl, options.idpKeyFile);
  const anonymous = sessions.anonymous;
  const as = (role: Role, wallet: string) => sessions.as(`demo-${role}`, wallet, role);

  const result: DemoMetadataResult = { subnets: [], pods: [] };

  for (const [index, subnet] of seeded.subnets.entries()) {
    const content = subnetContent(index, subnet.tokenId);
    const item: DemoItemResult = { tokenId: subnet.tokenId, owner: subnet.owner, name: content.subnetName, status: "failed" };
    result.subnets.push(item);
    try {
      Object.assign(item, await linkSubnet(await as(subnet.owner, subnet.ownerAddress), anonymous, subnet, content, seeded.primaryToken));
    } catch (error) {
      item.reason = error instanceof Error ? error.message : String(error);
    }
  }

  for (const [index, pod] of seeded.pods.entries()) {
    const content = podContent(index, pod.tokenId);
    const item: DemoItemResult = { tokenId: pod.tokenId, owner: pod.owner, name: content.podName, status: "failed" };
    result.pods.push(item);
    if (pod.senderAddress.toLowerCase() !== pod.ownerAddress.toLowerCase()) {
      item.status = "skipped";
      item.reason = `minted by ${pod.sender} for ${pod.owner}: its mint was not sent by the owner`;
      continue;
    }
    try {
      Object.assign(item, await linkPod(await as(pod.owner, pod.ownerAddress), anonymous, pod, content));
    } catch (error) {
      item.reason = error instanceof Error ? error.message : String(error);
    }
  }
  return result;
}

/** A datanet's draft, created (or reused) by its owner and published with its publish transaction. */
export async function linkSubnet(
  owner: Client,
  anonymous: Client,
  subnet: Pick<SeededSubnet, "tokenId" | "primaryToken" | "publishTxHash">,
  content: SubnetContent,
  primaryToken: Pick<SeedSummary["seeded"]["primaryToken"], "symbol" | "decimals">,
): Promise<Partial<DemoItemResult>> {
  const mine = dataOf("GET /api/v1/me/subnets", await owner.GET("/api/v1/me/subnets")).subnets;
  const linked = mine.find((s) => s.tokenId === subnet.tokenId);
  if (linked) return { id: linked.id, status: "existing" };
  const listed = dataOrNotFound(
    "GET /api/v1/public/subnets/{id}",
    await anonymous.GET("/api/v1/public/subnets/{id}", { params: { path: { id: String(subnet.tokenId) } } }),
  );
  if (listed) return { id: listed.subnet.id, status: "existing", reason: "linked by another user" };

  // a draft an earlier, interrupted run left unpublished is reused
  let id = mine.find((s) => s.tokenId === null && s.subnetName === content.subnetName)?.id;
  id ??= dataOf(
    "POST /api/v1/me/subnets",
    await owner.POST("/api/v1/me/subnets", {
      body: {
        ...content,
        nativeTokenAddress: subnet.primaryToken,
        nativeTokenSymbol: primaryToken.symbol.slice(0, 5),
        nativeTokenDecimals: primaryToken.decimals,
      },
    }),
  ).id;
  try {
    dataOf(
      "POST /api/v1/me/subnets/{id}/publish",
      await owner.POST("/api/v1/me/subnets/{id}/publish", {
        params: { path: { id } },
        body: { subnetId: id, txHash: subnet.publishTxHash },
      }),
    );
  } catch (error) {
    if (isAlreadyDone(error)) return { id, status: "existing", reason: (error as ApiError).apiMessage };
    throw error;
  }
  return { id, status: "linked" };
}

async function linkPod(owner: Client, anonymous: Client, pod: SeededPod, content: PodContent): Promise<Partial<DemoItemResult>> {
  const mine = dataOf("GET /api/v1/me/pods", await owner.GET("/api/v1/me/pods")).pods;
  let id = mine.find((p) => p.tokenId === pod.tokenId)?.id;
  let status: DemoItemStatus = "existing";
  if (!id) {
    const listed = dataOrNotFound(
      "GET /api/v1/public/pods/{podId}",
      await anonymous.GET("/api/v1/public/pods/{podId}", { params: { path: { podId: String(pod.tokenId) } } }),
    );
    if (listed) return { id: listed.pod.id, status: "existing", reason: "linked by another user" };
    const linked = await createLinkedPod(owner, pod, content, mine.find((p) => p.tokenId === null && p.name === content.podName)?.id);
    if (linked.status !== "linked") return linked;
    id = linked.id!;
    status = "linked";
  }
  // the owner's republishes: the pod's datanet follows the latest one
  for (const republish of pod.republishes) {
    try {
      dataOf(
        "POST /api/v1/me/pods/{id}/republish",
        await owner.POST("/api/v1/me/pods/{id}/republish", { params: { path: { id } }, body: { podId: id, txHash: republish.txHash } }),
      );
    } catch (error) {
      if (!isAlreadyDone(error)) throw error;
    }
  }
  return { id, status };
}

/**
 * A pod's draft (`reuse`: an unlinked draft of the owner's, else a new one in the datanet the pod
 * was minted in, which must have metadata by now), linked with the owner's mint transaction.
 */
export async function createLinkedPod(
  owner: Client,
  pod: Pick<SeededPod, "subnetTokenId" | "mintTxHash">,
  content: PodContent,
  reuse?: string,
): Promise<Partial<DemoItemResult>> {
  const id =
    reuse ??
    dataOf(
      "POST /api/v1/me/pods",
      await owner.POST("/api/v1/me/pods", { body: { ...content, subnetId: String(pod.subnetTokenId), agreeToTerms: true } }),
    ).id;
  try {
    dataOf(
      "POST /api/v1/me/pods/{id}/mint",
      await owner.POST("/api/v1/me/pods/{id}/mint", { params: { path: { id } }, body: { podId: id, txHash: pod.mintTxHash } }),
    );
  } catch (error) {
    if (isAlreadyDone(error)) return { id, status: "existing", reason: (error as ApiError).apiMessage };
    throw error;
  }
  return { id, status: "linked" };
}

/** One line for the launcher: how many datanets and pods got metadata, and what was left out. */
export function describeDemoMetadata(result: DemoMetadataResult): string {
  const count = (items: DemoItemResult[], status: DemoItemStatus) => items.filter((item) => item.status === status).length;
  const parts = [
    `${count(result.subnets, "linked")} datanets and ${count(result.pods, "linked")} pods got metadata`,
  ];
  const existing = count(result.subnets, "existing") + count(result.pods, "existing");
  if (existing > 0) parts.push(`${existing} already had it`);
  for (const pod of result.pods.filter((item) => item.status === "skipped")) parts.push(`pod ${pod.tokenId} skipped (${pod.reason})`);
  const failed = [...result.subnets.map((s) => ["datanet", s] as const), ...result.pods.map((p) => ["pod", p] as const)].filter(
    ([, item]) => item.status === "failed",
  );
  for (const [kind, item] of failed) parts.push(`${kind} ${item.tokenId} failed: ${item.reason}`);
  return parts.join("; ");
}
