/** Agent routes (spec §4.5): `createAgentsRouter(deps)` is mounted under /api/v1. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Hash } from "viem";
import { notFound } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import { agentAuth } from "../../agents-auth";
import type { AgentsDeps } from "../../agents-config";
import { chainReady, createPlatformRouter, platformContext } from "../../context";
import { archivePodOfAgent, registerAgent, updateAgentProfile } from "../../services/agents";
import { createMintedPod } from "../../services/pod-drafts";
import { createPublishedSubnet } from "../../services/subnet-drafts";
import {
  assertTransactionUnused,
  findPodRef,
  mintedTokenId,
  recordReportedVote,
  verifyVoteTransaction,
} from "../../services/votes";
import { listPublicSubnetSummaries } from "./queries";
import {
  AGENT_BEARER_SCHEME,
  agentVoteRoute,
  archiveAgentPodRoute,
  createAgentPodRoute,
  createAgentSubnetRoute,
  listAgentSubnetsRoute,
  registerAgentRoute,
  updateAgentRoute,
} from "./routes";

export function createAgentsRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  const context = platformContext(deps);
  const { db } = deps;
  const auth = agentAuth(deps);
  router.openAPIRegistry.registerComponent("securitySchemes", "agentBearer", AGENT_BEARER_SCHEME);

  router.openapi(registerAgentRoute, async (c) => {
    const agent = await registerAgent(db, c.req.valid("json"));
    return c.json({ data: agent }, 200);
  });

  router.openapi({ ...listAgentSubnetsRoute, middleware: chainReady(deps) }, async (c) => {
    const rows = await listPublicSubnetSummaries(db);
    const subnets = rows.map((row) => ({ id: row.id, name: row.name, description: row.description, tokenId: row.tokenId! }));
    return c.json({ data: { subnets } }, 200);
  });

  router.openapi({ ...updateAgentRoute, middleware: auth }, async (c) => {
    const agent = c.get("agent");
    await updateAgentProfile(db, agent.id, c.req.valid("json"));
    return c.json({ data: { id: agent.id } }, 200);
  });

  router.openapi({ ...createAgentSubnetRoute, middleware: auth }, async (c) => {
    const agent = c.get("agent");
    const { txHash, ...body } = c.req.valid("json");
    const { id } = await createPublishedSubnet(db, context, {
      creator: { kind: "agent", agentId: agent.id },
      wallet: agent.walletAddress,
      body,
      txHash: txHash as Hash,
    });
    return c.json({ data: { subnetId: id } }, 201);
  });

  router.openapi({ ...createAgentPodRoute, middleware: auth }, async (c) => {
    const agent = c.get("agent");
    const { txHash, ...body } = c.req.valid("json");
    const { id } = await createMintedPod(db, context, {
      creator: { kind: "agent", agentId: agent.id },
      wallet: agent.walletAddress,
      body,
      txHash: txHash as Hash,
      source: "agent",
    });
    return c.json({ data: { podId: id } }, 201);
  });

  router.openapi({ ...archiveAgentPodRoute, middleware: auth }, async (c) => {
    const podId = await archivePodOfAgent(db, c.get("agent").id, c.req.valid("param").podId);
    return c.json({ data: { podId } }, 200);
  });

  router.openapi({ ...agentVoteRoute, middleware: auth }, async (c) => {
    const agent = c.get("agent");
    const { podId } = c.req.valid("param");
    const { txHash } = c.req.valid("json");
    const pod = await findPodRef(db, podId, { agentId: agent.id });
    if (!pod) throw notFound("Pod not found");
    const podTokenId = mintedTokenId(pod);
    await assertTransactionUnused(db, txHash as Hash);
    const vote = await verifyVoteTransaction(context, {
      hash: txHash as Hash,
      voter: agent.walletAddress,
      claim: { podTokenId },
    });
    const id = await recordReportedVote(db, vote, { agentId: agent.id, podKey: pod.key });
    return c.json({ data: { id } }, 200);
  });

  return router;
}
