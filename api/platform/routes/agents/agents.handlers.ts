/** Agent handlers (spec §4.5): registration, wallet binding, profile, subnets, pods, archive, votes. */
import type { Hash } from "viem";
import type { PlatformHandler } from "../../app-services";
import { listPublicSubnetSummaries } from "../../repositories/agents";
import { agentWalletFor, bindAgentWallet as bind, issueWalletNonce } from "../../services/agent-wallets";
import { archivePodOfAgent, registerAgent as register, updateAgentProfile } from "../../services/agents";
import { createMintedPod } from "../../services/pod-drafts";
import { findPodRef, mintedTokenId, podNotFound } from "../../services/refs";
import { createPublishedSubnet } from "../../services/subnet-drafts";
import { recordReportedVote } from "../../services/votes";
import type * as routes from "./agents.routes";

export const registerAgent: PlatformHandler<typeof routes.registerAgentRoute> = async (c) => {
  const { db, platform } = c.get("services");
  const agent = await register(db, platform, c.req.valid("json"));
  return c.json({ data: agent }, 200);
};

export const createAgentWalletNonce: PlatformHandler<typeof routes.createAgentWalletNonceRoute> = async (c) => {
  const data = await issueWalletNonce(c.get("services").db, c.req.valid("json"));
  return c.json({ data }, 200);
};

export const bindAgentWallet: PlatformHandler<typeof routes.bindAgentWalletRoute> = async (c) => {
  const { db, platform } = c.get("services");
  const data = await bind(db, platform, c.get("agent").id, c.req.valid("json"));
  return c.json({ data }, 200);
};

export const listAgentSubnets: PlatformHandler<typeof routes.listAgentSubnetsRoute> = async (c) => {
  const rows = await listPublicSubnetSummaries(c.get("services").db);
  const subnets = rows.map((row) => ({ id: row.id, name: row.name, description: row.description, tokenId: row.tokenId! }));
  return c.json({ data: { subnets } }, 200);
};

export const updateAgent: PlatformHandler<typeof routes.updateAgentRoute> = async (c) => {
  const agent = c.get("agent");
  await updateAgentProfile(c.get("services").db, agent.id, c.req.valid("json"));
  return c.json({ data: { id: agent.id } }, 200);
};

export const createAgentSubnet: PlatformHandler<typeof routes.createAgentSubnetRoute> = async (c) => {
  const agent = c.get("agent");
  const { db, platform } = c.get("services");
  const { txHash, ...body } = c.req.valid("json");
  const sender = await agentWalletFor(db, platform, agent, txHash as Hash);
  const { id } = await createPublishedSubnet(db, platform, {
    creator: { kind: "agent", agentId: agent.id },
    wallet: sender.wallet,
    body,
    txHash: txHash as Hash,
    receipt: sender.receipt,
    alongside: sender.alongside,
  });
  return c.json({ data: { subnetId: id } }, 201);
};

export const createAgentPod: PlatformHandler<typeof routes.createAgentPodRoute> = async (c) => {
  const agent = c.get("agent");
  const { db, platform } = c.get("services");
  const { txHash, ...body } = c.req.valid("json");
  const sender = await agentWalletFor(db, platform, agent, txHash as Hash);
  const { id } = await createMintedPod(db, platform, {
    creator: { kind: "agent", agentId: agent.id },
    wallet: sender.wallet,
    body,
    txHash: txHash as Hash,
    receipt: sender.receipt,
    source: "agent",
    alongside: sender.alongside,
  });
  return c.json({ data: { podId: id } }, 201);
};

export const archiveAgentPod: PlatformHandler<typeof routes.archiveAgentPodRoute> = async (c) => {
  const podId = await archivePodOfAgent(c.get("services").db, c.get("agent").id, c.req.valid("param").podId);
  return c.json({ data: { podId } }, 200);
};

export const agentVote: PlatformHandler<typeof routes.agentVoteRoute> = async (c) => {
  const agent = c.get("agent");
  const { db, platform } = c.get("services");
  const { podId } = c.req.valid("param");
  const { txHash, feedback } = c.req.valid("json");
  const pod = await findPodRef(db, podId, { agentId: agent.id });
  if (!pod) throw podNotFound();
  const podTokenId = mintedTokenId(pod);
  const id = await recordReportedVote(db, platform, {
    txHash: txHash as Hash,
    claim: async () => ({ ...(await agentWalletFor(db, platform, agent, txHash as Hash)), podTokenId }),
    by: { agentId: agent.id, podKey: pod.key, feedback },
  });
  return c.json({ data: { id } }, 200);
};
