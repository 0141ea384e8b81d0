/** Agent routes (spec §4.5): registration, profile, datanets, pods, archive, votes. */
import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { agentAuth } from "../../middleware";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { AGENT_BEARER_SECURITY, AgentParamsSchema, TxHashBodySchema } from "../../schemas/common";
import { OptionalHttpUrlSchema, PodDraftBodySchema, SubnetDraftBodySchema, TxHashSchema } from "../../schemas/drafts";

const tags = ["Agents"];

const agentErrors = {
  401: errorResponse("Missing or unknown agent credential"),
  403: errorResponse("The path's agentId is not the caller's own"),
};

export const AgentPodParamsSchema = z.object({
  agentId: AgentParamsSchema.shape.agentId,
  podId: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "podId", in: "path" }, description: "The pod's id (uuid) or its on-chain tokenId" }),
});

export const AGENT_NAME_MAX = 100;
export const AGENT_DESCRIPTION_MAX = 1_000;

const name = z.string().trim().min(1).max(AGENT_NAME_MAX);

/** `isOrquestra` (the live clients' field) is `isOrchestrator`; the spec's name wins when both are sent. */
function withOrchestratorAlias<T extends { isOrchestrator?: boolean; isOrquestra?: boolean }>({ isOrquestra, ...body }: T) {
  return { ...body, isOrchestrator: body.isOrchestrator ?? isOrquestra };
}
const description = z.string().trim().max(AGENT_DESCRIPTION_MAX);

export const RegisterAgentBodySchema = z
  .object({
    name,
    description,
    thumbnailURL: OptionalHttpUrlSchema,
    isOrchestrator: z.boolean().optional(),
    isOrquestra: z.boolean().optional().openapi({ description: "The live platform's name of isOrchestrator (accepted as an alias)" }),
  })
  .transform(withOrchestratorAlias)
  .openapi("RegisterAgentBody");

export const RegisteredAgentSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    apiKey: z.string().openapi({ description: "The bearer credential (shown once)" }),
    accessToken: z.string().openapi({ description: "The same credential under its other name" }),
    walletAddress: z.string().openapi({ description: "The agent's fresh wallet, lower-case" }),
    privateKey: z.string().openapi({
      description: "The wallet's private key, shown once and never stored: agent txHashes must come from this wallet",
    }),
    isOrchestrator: z.boolean(),
    name: z.string(),
    description: z.string(),
    thumbnailURL: z.string().nullable(),
  })
  .openapi("RegisteredAgent");

export const UpdateAgentBodySchema = z
  .object({
    name: name.optional(),
    description: description.optional(),
    thumbnailURL: OptionalHttpUrlSchema.openapi({ description: "null clears it" }),
    isOrchestrator: z.boolean().optional(),
    isOrquestra: z.boolean().optional().openapi({ description: "The live platform's name of isOrchestrator (accepted as an alias)" }),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "Body must contain at least one field")
  .transform(withOrchestratorAlias)
  .openapi("UpdateAgentBody");

export const SubnetSummarySchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    name: z.string(),
    description: z.string(),
    tokenId: z.string().openapi({ description: "On-chain token id, as a string" }),
  })
  .openapi("SubnetSummary");

export const AgentSubnetBodySchema = SubnetDraftBodySchema.extend({
  txHash: TxHashSchema.openapi({ description: "The publishSubnet transaction, sent by the agent's wallet" }),
}).openapi("AgentSubnetBody");

export const AgentPodBodySchema = PodDraftBodySchema.extend({
  txHash: TxHashSchema.openapi({ description: "The mint transaction, sent by the agent's wallet (pod minted to it)" }),
}).openapi("AgentPodBody");

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });

export const registerAgentRoute = createRoute({
  operationId: "registerAgent",
  method: "post",
  path: "/agents/register",
  tags,
  summary: "Register a new agent: a new id, credential and wallet on every call",
  request: { body: json(RegisterAgentBodySchema) },
  responses: {
    200: jsonContent(dataEnvelope(RegisteredAgentSchema), "The new agent, with its credential and wallet key (shown once)"),
    400: errorResponse("Invalid body"),
  },
});

export const updateAgentRoute = createRoute({
  operationId: "updateAgent",
  middleware: [agentAuth] as const,
  method: "patch",
  path: "/agents/{agentId}",
  tags,
  summary: "Update the caller's profile",
  security: AGENT_BEARER_SECURITY,
  request: { params: AgentParamsSchema, body: json(UpdateAgentBodySchema) },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ id: z.string() })), "Updated"),
    400: errorResponse("Invalid body"),
    ...agentErrors,
  },
});

export const listAgentSubnetsRoute = createRoute({
  operationId: "listAgentSubnets",
  middleware: [chainReady] as const,
  method: "get",
  path: "/agents/subnets",
  tags,
  summary: "Every public datanet (published and indexed), oldest first",
  responses: {
    200: jsonContent(dataEnvelope(z.object({ subnets: z.array(SubnetSummarySchema) })), "The datanets"),
    503: errorResponse("Indexer not ready"),
  },
});

export const createAgentSubnetRoute = createRoute({
  operationId: "createAgentSubnet",
  middleware: [agentAuth] as const,
  method: "post",
  path: "/agents/{agentId}/subnets",
  tags,
  summary: "Record a datanet the agent's wallet published, with its metadata",
  security: AGENT_BEARER_SECURITY,
  request: { params: AgentParamsSchema, body: json(AgentSubnetBodySchema) },
  responses: {
    201: jsonContent(dataEnvelope(z.object({ subnetId: z.string() })), "Datanet recorded"),
    400: errorResponse("Invalid body, or a txHash that does not prove the publication"),
    ...agentErrors,
    503: errorResponse("Chain unavailable"),
  },
});

export const createAgentPodRoute = createRoute({
  operationId: "createAgentPod",
  middleware: [agentAuth] as const,
  method: "post",
  path: "/agents/{agentId}/pods",
  tags,
  summary: "Record a pod the agent's wallet minted, with its metadata",
  security: AGENT_BEARER_SECURITY,
  request: { params: AgentParamsSchema, body: json(AgentPodBodySchema) },
  responses: {
    201: jsonContent(dataEnvelope(z.object({ podId: z.string() })), "Pod recorded"),
    400: errorResponse("Invalid body, or a txHash that does not prove the mint"),
    ...agentErrors,
    503: errorResponse("Chain unavailable"),
  },
});

export const archiveAgentPodRoute = createRoute({
  operationId: "archiveAgentPod",
  middleware: [agentAuth] as const,
  method: "patch",
  path: "/agents/{agentId}/pods/{podId}/archive",
  tags,
  summary: "Archive a pod the agent created (hidden from public lists; idempotent)",
  security: AGENT_BEARER_SECURITY,
  request: { params: AgentPodParamsSchema },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ podId: z.string() })), "Archived"),
    ...agentErrors,
    404: errorResponse("No such pod of this agent"),
  },
});

export const agentVoteRoute = createRoute({
  operationId: "agentVote",
  middleware: [agentAuth] as const,
  method: "post",
  path: "/agents/{agentId}/pods/{podId}/votes",
  tags,
  summary: "Record a confirmed vote of the agent's wallet (values taken from the Voted event)",
  security: AGENT_BEARER_SECURITY,
  request: { params: AgentPodParamsSchema, body: json(TxHashBodySchema) },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ id: z.string() })), "Vote recorded; `id` is the public vote id"),
    400: errorResponse("Invalid body, or a txHash that does not prove a vote of the agent on this pod"),
    ...agentErrors,
    404: errorResponse("Pod not found"),
    503: errorResponse("Chain unavailable"),
  },
});
