/**
 * Helpers of the engagement and agent route tests, on top of harness.ts: published datanets and
 * minted pods made through the API with real transactions, locks and access for voters, agent
 * registration (bound to a wallet the user controls, or with a funded server-generated wallet),
 * and bearer requests.
 */
import { parseEther, type Account, type Hash } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import type { AgentsConfig } from "../../api/platform/config";
import { createPlatformApp } from "../../api/platform/app";
import { DAY } from "../../devnet/deploy";
import { BASE, CORE, json, podDraftBody, subnetDraftBody, type PlatformHarness, type Session } from "./harness";

export type Ref = { id: string; tokenId: bigint };

/** A datanet drafted by `session` and published on chain by `account`. */
export async function publishDatanet(h: PlatformHarness, session: Session, account: Account, name = "Research"): Promise<Ref> {
  const p = h.devnet.protocol;
  const created = await session.post(`${BASE}/me/subnets`, subnetDraftBody({ subnetName: name }, p.address("DemoToken")));
  expect(created.status).toBe(201);
  const { id } = (await json(created)).data;
  const tokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
  const { transactionHash } = await h.write(account, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
  const response = await session.post(`${BASE}/me/subnets/${id}/publish`, { subnetId: id, txHash: transactionHash });
  expect(response.status).toBe(200);
  return { id, tokenId };
}

/** A pod drafted by `session` and minted by `account` into `subnet`. */
export async function mintedPod(
  h: PlatformHarness,
  session: Session,
  account: Account,
  subnet: Ref,
  overrides: Record<string, unknown> = {},
): Promise<Ref> {
  const p = h.devnet.protocol;
  const created = await session.post(`${BASE}/me/pods`, podDraftBody(subnet.id, overrides));
  expect(created.status).toBe(201);
  const { id } = (await json(created)).data;
  const tokenId = await p.read<bigint>("PodManager", "nextPodId");
  const { transactionHash } = await h.write(account, "PodManager", "mintPodWithCORE", [account.address, subnet.tokenId]);
  const response = await session.post(`${BASE}/me/pods/${id}/mint`, { podId: id, txHash: transactionHash });
  expect(response.status).toBe(200);
  return { id, tokenId };
}

/** Gives `voter` voting power (a lock of `amount` CORE for a year) and access to the datanets. */
export async function makeVoter(h: PlatformHarness, voter: Account, subnets: Ref[], amount = CORE(1000)) {
  await h.write(voter, "VeCore", "stake", [amount, BigInt(365 * DAY)]);
  for (const subnet of subnets) {
    await h.write(voter, "SubnetManager", "accessSubnetWithCOREFee", [subnet.tokenId, voter.address]);
  }
}

/** Votes on chain; returns the tx hash and the event's epoch and voting power. */
export async function voteOnChain(h: PlatformHarness, voter: Account, pod: Ref, votes: bigint, upVote = true) {
  const receipt = await h.write(voter, "PodManager", "vote", [pod.tokenId, votes, upVote]);
  const p = h.devnet.protocol;
  const epoch = await p.currentEpoch();
  const votingPower = await p.read<bigint>("VeCore", "votingPowerOf", [voter.address]);
  return { hash: receipt.transactionHash as Hash, logIndex: receipt.logs.at(-1)!.logIndex, epoch, votingPower };
}

export type Agent = {
  id: string;
  credential: string;
  walletAddress: `0x${string}`;
  account: Account;
  registration: Record<string, unknown>;
  request(path: string, options?: { method?: string; body?: unknown; credential?: string }): Promise<Response>;
};

function agentRequester(h: PlatformHarness, credential: string): Agent["request"] {
  return (path, { method, body, credential: other } = {}) =>
    h.request(path, {
      method: method ?? (body === undefined ? "GET" : "POST"),
      body,
      headers: { Authorization: `Bearer ${other ?? credential}` },
    });
}

/**
 * Registers an agent through the API as the spec has it (a new generated wallet, whose private key
 * the answer carries once); with `funded`, gives that wallet ETH, CORE and approvals.
 */
export async function registerAgent(
  h: PlatformHarness,
  body: Record<string, unknown> = { name: "Scout", description: "Finds datasets" },
  { funded = false } = {},
): Promise<Agent> {
  const response = await h.request(`${BASE}/agents/register`, { body });
  expect(response.status).toBe(200);
  const { data } = await json(response);
  const account = privateKeyToAccount(data.privateKey);
  const agent: Agent = {
    id: data.id,
    credential: data.apiKey,
    walletAddress: data.walletAddress,
    account,
    registration: data,
    request: agentRequester(h, data.apiKey),
  };
  if (funded) {
    await h.devnet.protocol.testClient.setBalance({ address: account.address, value: parseEther("10") });
    await h.fund(account);
  }
  return agent;
}

/** A wallet-binding nonce for `account` (a new agent, or `agentId`) and the account's signature of its message. */
export async function walletProof(h: PlatformHarness, account: Account, agentId?: string) {
  const response = await h.request(`${BASE}/agents/wallet-nonce`, { body: { walletAddress: account.address, agentId } });
  expect(response.status).toBe(200);
  const { nonce, message } = (await json(response)).data as { nonce: string; message: string };
  const signature = await account.signMessage!({ message });
  return { walletAddress: account.address, nonce, signature, message };
}

/** Binds `account` (default: the agent's generated wallet) to the agent by its signature of a fresh nonce. */
export async function bindWallet(h: PlatformHarness, agent: Agent, account: Account = agent.account): Promise<void> {
  const proof = await walletProof(h, account, agent.id);
  const bound = await agent.request(`${BASE}/agents/${agent.id}/wallet`, {
    body: { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature },
  });
  expect(bound.status).toBe(200);
}

/** The test's handle on an agent registered without a wallet (as the live clients do) that will act for `account`. */
export function agentFromRegistration(h: PlatformHarness, data: { id: string; apiKey: string }, account: Account): Agent {
  return {
    id: data.id,
    credential: data.apiKey,
    walletAddress: account.address.toLowerCase() as `0x${string}`,
    account,
    registration: data,
    request: agentRequester(h, data.apiKey),
  };
}

/** Registers an agent bound to `account`, a wallet the user controls (nonce, signature, register). */
export async function registerAgentForWallet(
  h: PlatformHarness,
  account: Account,
  body: Record<string, unknown> = { name: "Scout", description: "Finds datasets" },
): Promise<Agent> {
  const { walletAddress, nonce, signature } = await walletProof(h, account);
  const response = await h.request(`${BASE}/agents/register`, { body: { ...body, walletAddress, nonce, signature } });
  expect(response.status).toBe(200);
  const { data } = await json(response);
  expect(data.walletAddress).toBe(account.address.toLowerCase());
  expect(data).not.toHaveProperty("privateKey");
  return {
    id: data.id,
    credential: data.apiKey,
    walletAddress: data.walletAddress,
    account,
    registration: data,
    request: agentRequester(h, data.apiKey),
  };
}

/** The same app with other engagement/agent settings (e.g. more order confirmations). */
export function appWithAgentsConfig(h: PlatformHarness, overrides: Partial<AgentsConfig>) {
  const agentsConfig: AgentsConfig = {
    subscriptionPackages: [{ id: "monthly", subscriptionDays: 30 }],
    orderMinConfirmations: 1,
    datasetMaxItems: 1_000,
    publicVotesMaxItems: 1_000,
    commentsMaxItems: 500,
    datasetDownloads: { concurrency: 2, maxQueued: 20 },
    ...overrides,
  };
  const app = createPlatformApp({ ...h.deps, agentsConfig } as Parameters<typeof createPlatformApp>[0]);
  return {
    app,
    request(path: string, { method, body, headers = {} }: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
      return app.request(path, {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
}

/** Polls `check` until it returns true (the indexer's views may trail its reported block by a moment). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the indexer caught up and the pod is publicly listed. */
export async function listed(h: PlatformHarness, ...pods: Ref[]): Promise<void> {
  await h.caughtUp();
  for (const pod of pods) {
    await eventually(async () => (await h.request(`${BASE}/public/pods/${pod.id}`)).status === 200);
  }
}
