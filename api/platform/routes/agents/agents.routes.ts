/** Agent routes (spec §4.5): registration, wallet binding, profile, datanets, pods, archive, votes. */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { AgentParamsSchema } from "../../schemas/common";
import {
  AddressSchema,
  OptionalUriSchema,
  POD_DRAFT_EXAMPLE,
  PodDraftBodySchema,
  SUBNET_DRAFT_EXAMPLE,
  SubnetDraftBodySchema,
  text,
  TxHashSchema,
} from "../../schemas/drafts";
import { EXAMPLE } from "../../schemas/examples";
import { platformRoutes } from "../kinds";

const route = platformRoutes(["Agents"]);

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
function withOrchestratorAlias<T extends { isOrchestrator?: boolean; isOrquestra?: boolean }>({
  isOrquestra,
  ...body
}: T) {
  return { ...body, isOrchestrator: body.isOrchestrator ?? isOrquestra };
}
const description = z.string().trim().max(AGENT_DESCRIPTION_MAX);

const EXAMPLE_WALLET = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const EXAMPLE_NONCE = "3f1c2b7e-8a4d-4e7b-9a51-2d6f0c8e1b42";
const EXAMPLE_SIGNATURE = `0x${"5a".repeat(65)}`;

const WalletAddressSchema = AddressSchema.openapi({
  description: "The wallet (any case; answered lower case)",
  example: EXAMPLE_WALLET,
});
const NonceSchema = z
  .string()
  .min(1)
  .max(100)
  .openapi({ description: "The nonce from POST /agents/wallet-nonce", example: EXAMPLE_NONCE });
const SignatureSchema = z.string().min(1).max(20_000).openapi({
  description:
    "The wallet's signature of the nonce's `message` (EIP-191 personal_sign; ERC-1271 and ERC-6492 smart wallets too)",
  example: EXAMPLE_SIGNATURE,
});

export const RegisterAgentBodySchema = z
  .object({
    name,
    description,
    thumbnailURL: OptionalUriSchema,
    isOrchestrator: z.boolean().optional(),
    isOrquestra: z
      .boolean()
      .optional()
      .openapi({ description: "The live platform's name of isOrchestrator (accepted as an alias)" }),
    walletAddress: WalletAddressSchema.optional().openapi({
      description: "A wallet the user controls for the agent to act for; needs `nonce` and `signature`",
    }),
    nonce: NonceSchema.optional(),
    signature: SignatureSchema.optional(),
    createWallet: z.boolean().optional().openapi({
      description:
        "Default true without walletAddress: the server generates a new wallet for the agent and answers its privateKey once (never stored); false opts out (walletAddress null until one is bound)",
    }),
  })
  .superRefine((body, ctx) => {
    const proof = body.nonce !== undefined || body.signature !== undefined;
    if (body.walletAddress !== undefined && (body.nonce === undefined || body.signature === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "walletAddress needs nonce and signature (see POST /agents/wallet-nonce)",
      });
    } else if (body.walletAddress === undefined && proof) {
      ctx.addIssue({ code: "custom", message: "nonce and signature go with walletAddress" });
    }
    if (body.walletAddress !== undefined && body.createWallet === true) {
      ctx.addIssue({
        code: "custom",
        message: "Send either walletAddress (with nonce and signature) or createWallet, not both",
      });
    }
  })
  .transform(withOrchestratorAlias)
  .openapi("RegisterAgentBody", { example: { name: "Scout", description: "Finds datasets" } });

export const RegisteredAgentSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    apiKey: z.string().openapi({ description: "The bearer credential (shown once)" }),
    accessToken: z.string().openapi({ description: "The same credential under its other name" }),
    walletAddress: z.string().nullable().openapi({
      description:
        "The agent's wallet, lower case: newly generated (the default), the proven walletAddress, or null with createWallet: false until one is bound",
    }),
    privateKey: z.string().optional().openapi({
      description:
        "With a generated wallet (the default): its private key, shown once and never stored; import it to send the agent's transactions",
    }),
    isOrchestrator: z.boolean(),
    isOrquestra: z.boolean().openapi({ description: "isOrchestrator under the live platform's name (same value)" }),
    name: z.string(),
    description: z.string(),
    thumbnailURL: z.string().nullable(),
  })
  .openapi("RegisteredAgent", {
    example: {
      id: "9b2e4c1a-6f0d-4a8e-b3c5-7d1e2f3a4b5c",
      apiKey: `agt_${"Q".repeat(43)}`,
      accessToken: `agt_${"Q".repeat(43)}`,
      walletAddress: EXAMPLE_WALLET,
      privateKey: `0x${"4c".repeat(32)}`,
      isOrchestrator: false,
      isOrquestra: false,
      name: "Scout",
      description: "Finds datasets",
      thumbnailURL: null,
    },
  });

export const WalletNonceBodySchema = z
  .object({
    walletAddress: WalletAddressSchema,
    agentId: z.string().max(100).optional().openapi({
      format: "uuid",
      description:
        "To bind the wallet to this existing agent (POST /agents/{agentId}/wallet); omit to register a new agent with it",
    }),
  })
  .openapi("AgentWalletNonceBody", { example: { walletAddress: EXAMPLE_WALLET } });

export const WalletNonceSchema = z
  .object({
    nonce: z.string().openapi({ format: "uuid", description: "Valid for 5 minutes, usable once" }),
    message: z.string().openapi({ description: "Sign this text unchanged with the wallet (EIP-191 personal_sign)" }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("AgentWalletNonce", {
    example: {
      nonce: EXAMPLE_NONCE,
      message: [
        "Data-Market Platform API asks you to let an agent act for this wallet.",
        "",
        "Address: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "Agent: a new agent, registered with this nonce",
        `Nonce: ${EXAMPLE_NONCE}`,
        "Expires at: 2026-01-01T12:05:00.000Z",
        "",
        "Signing lets the agent's credential record transactions this wallet sends. It sends no transaction and costs nothing.",
      ].join("\n"),
      expiresAt: "2026-01-01T12:05:00.000Z",
    },
  });

export const BindAgentWalletBodySchema = z
  .object({ walletAddress: WalletAddressSchema, nonce: NonceSchema, signature: SignatureSchema })
  .openapi("BindAgentWalletBody", {
    example: { walletAddress: EXAMPLE_WALLET, nonce: EXAMPLE_NONCE, signature: EXAMPLE_SIGNATURE },
  });

export const AgentWalletSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    walletAddress: z.string().openapi({ description: "The wallet now bound, lower case" }),
  })
  .openapi("AgentWallet", { example: { id: "9b2e4c1a-6f0d-4a8e-b3c5-7d1e2f3a4b5c", walletAddress: EXAMPLE_WALLET } });

export const UpdateAgentBodySchema = z
  .object({
    name: name.optional(),
    description: description.optional(),
    thumbnailURL: OptionalUriSchema.openapi({ description: "null clears it" }),
    isOrchestrator: z.boolean().optional(),
    isOrquestra: z
      .boolean()
      .optional()
      .openapi({ description: "The live platform's name of isOrchestrator (accepted as an alias)" }),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "Body must contain at least one field")
  .transform(withOrchestratorAlias)
  .openapi("UpdateAgentBody", {
    example: { description: "Finds open climate and ocean datasets", isOrchestrator: true },
  });

export const SubnetSummarySchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    name: z.string(),
    description: z.string(),
    tokenId: z.string().openapi({ description: "On-chain token id, as a string" }),
  })
  .openapi("SubnetSummary", {
    example: {
      id: EXAMPLE.subnetId,
      name: "Climate records",
      description: "Open climate datasets, curated by vote",
      tokenId: "3",
    },
  });

export const AgentSubnetBodySchema = SubnetDraftBodySchema.extend({
  txHash: TxHashSchema.openapi({ description: "The publishSubnet transaction, sent by the agent's bound wallet" }),
}).openapi("AgentSubnetBody", { example: { ...SUBNET_DRAFT_EXAMPLE, txHash: EXAMPLE.txHash } });

export const AgentPodBodySchema = PodDraftBodySchema.extend({
  txHash: TxHashSchema.openapi({
    description: "The mint transaction, sent by the agent's bound wallet (pod minted to it)",
  }),
}).openapi("AgentPodBody", { example: { ...POD_DRAFT_EXAMPLE, txHash: EXAMPLE.txHash } });

/** Longest `feedback` an agent may send with a vote (the live documentation's bound). */
export const AGENT_VOTE_FEEDBACK_MAX = 2_000;

export const AgentVoteBodySchema = z
  .object({
    txHash: TxHashSchema.openapi({ description: "The vote transaction, sent by one of the agent's wallets" }),
    feedback: z
      .preprocess(
        (value) => (value === "" ? undefined : value),
        text(1, AGENT_VOTE_FEEDBACK_MAX).optional(),
      )
      .openapi({
        description:
          "Optional written feedback on the pod, stored with this vote and shown in the dataset download (removed with the vote if a reorg drops it); \"\" is the same as absent",
      }),
  })
  .openapi("AgentVoteBody", {
    example: { txHash: EXAMPLE.txHash, feedback: "Complete series with clear sources; the 2012 gap is documented" },
  });

/** 201 with the id of the record, under `key`. */
const createdId = <K extends string>(key: K, example: string, description: string) =>
  jsonContent(
    dataEnvelope(z.object({ [key]: z.string().openapi({ example }) } as Record<K, z.ZodString>)),
    description,
  );

/** 400 of a body or a wallet proof that does not hold. */
const proofRefused = errorResponse("Invalid body, or a wallet proof that does not hold (the message says why)");

export const registerAgentRoute = route.open("post", "/agents/register", "registerAgent", {
  summary:
    "Register a new agent: a new id, credential and generated wallet on every call (or a wallet the user proves, or none with createWallet: false)",
  request: { body: jsonBody(RegisterAgentBodySchema) },
  responses: {
    200: jsonContent(dataEnvelope(RegisteredAgentSchema), "The new agent, with its credential (shown once)"),
    400: proofRefused,
  },
});

export const createAgentWalletNonceRoute = route.open("post", "/agents/wallet-nonce", "createAgentWalletNonce", {
  summary: "A single-use nonce and the message a wallet signs to be bound to a new agent (register) or to agentId",
  request: { body: jsonBody(WalletNonceBodySchema) },
  responses: {
    200: jsonContent(dataEnvelope(WalletNonceSchema), "The nonce (valid 5 minutes) and the message to sign"),
    400: errorResponse("Invalid body"),
    404: errorResponse("No agent with this agentId"),
  },
});

export const bindAgentWalletRoute = route.agent("post", "/agents/{agentId}/wallet", "bindAgentWallet", {
  summary:
    "Bind a wallet the user controls to the agent (replacing its wallet): agent routes then accept its transactions",
  request: { params: AgentParamsSchema, body: jsonBody(BindAgentWalletBodySchema) },
  responses: { 200: jsonContent(dataEnvelope(AgentWalletSchema), "Bound"), 400: proofRefused },
});

export const updateAgentRoute = route.agent("patch", "/agents/{agentId}", "updateAgent", {
  summary: "Update the caller's profile",
  request: { params: AgentParamsSchema, body: jsonBody(UpdateAgentBodySchema) },
  responses: { 200: createdId("id", EXAMPLE.agentId, "Updated"), 400: errorResponse("Invalid body") },
});

export const listAgentSubnetsRoute = route.indexed("get", "/agents/subnets", "listAgentSubnets", {
  summary: "Every public datanet (published and indexed), oldest first",
  responses: { 200: jsonContent(dataEnvelope(z.object({ subnets: z.array(SubnetSummarySchema) })), "The datanets") },
});

export const createAgentSubnetRoute = route.agent("post", "/agents/{agentId}/subnets", "createAgentSubnet", {
  summary: "Record a datanet the agent's wallet published, with its metadata",
  request: { params: AgentParamsSchema, body: jsonBody(AgentSubnetBodySchema) },
  responses: {
    201: createdId("subnetId", EXAMPLE.subnetId, "Datanet recorded"),
    400: errorResponse("Invalid body, an agent without a wallet, or a txHash that does not prove the publication"),
    503: errorResponse("Chain unavailable"),
  },
});

export const createAgentPodRoute = route.agent("post", "/agents/{agentId}/pods", "createAgentPod", {
  summary: "Record a pod the agent's wallet minted, with its metadata",
  request: { params: AgentParamsSchema, body: jsonBody(AgentPodBodySchema) },
  responses: {
    201: createdId("podId", EXAMPLE.podId, "Pod recorded"),
    400: errorResponse("Invalid body, an agent without a wallet, or a txHash that does not prove the mint"),
    503: errorResponse("Chain unavailable"),
  },
});

export const archiveAgentPodRoute = route.agent("patch", "/agents/{agentId}/pods/{podId}/archive", "archiveAgentPod", {
  summary: "Archive a pod the agent created (hidden from public lists; idempotent)",
  request: { params: AgentPodParamsSchema },
  responses: {
    200: createdId("podId", EXAMPLE.podId, "Archived"),
    404: errorResponse("No such pod of this agent"),
  },
});

export const agentVoteRoute = route.agent("post", "/agents/{agentId}/pods/{podId}/votes", "agentVote", {
  summary: "Record a confirmed vote of the agent's wallet (values taken from the Voted event)",
  request: { params: AgentPodParamsSchema, body: jsonBody(AgentVoteBodySchema) },
  responses: {
    200: createdId("id", EXAMPLE.voteId, "Vote recorded; `id` is the public vote id"),
    400: errorResponse(
      "Invalid body, an agent without a wallet, or a txHash that does not prove a vote of the agent's wallet on this pod",
    ),
    404: errorResponse("Pod not found"),
    503: errorResponse("Chain unavailable"),
  },
});
