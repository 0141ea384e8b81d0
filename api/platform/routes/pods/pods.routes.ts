/** Pod routes (spec §4.2): definitions whose zod schemas validate requests and generate the OpenAPI document. */
import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { userAuth } from "../../middleware";
import { EpochSchema } from "../../schemas/engagement";
import { commonErrors, dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { PublicPodSchema, UserPodSchema } from "../../presenters/pod";
import { hasNoNul, NO_NUL, PodDraftBodySchema, TxHashSchema } from "../../schemas/drafts";
import { CreatedIdSchema, IDP_COOKIE_SECURITY, PageQuerySchema, PaginationSchema, SuccessSchema } from "../../schemas/common";
import { EXAMPLE } from "../../schemas/examples";

const tags = ["Pods"];

/** Epoch numbers in paths and filters: integers from 1. */

const IdParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", description: "The pod's id" }),
});

const UserPodsEnvelope = dataEnvelope(z.object({ pods: z.array(UserPodSchema) }));

export const listMyPodsRoute = createRoute({
  operationId: "listMyPods",
  middleware: [userAuth, chainReady] as const,
  method: "get",
  path: "/me/pods",
  tags,
  summary: "Pods created by the caller (drafts, minted, archived)",
  security: IDP_COOKIE_SECURITY,
  responses: {
    200: jsonContent(UserPodsEnvelope, "The caller's pods, newest first"),
    401: commonErrors[401],
    503: errorResponse("Indexer not ready"),
  },
});

export const createPodRoute = createRoute({
  operationId: "createPod",
  middleware: [userAuth] as const,
  method: "post",
  path: "/me/pods",
  tags,
  summary: "Create a pod draft",
  description:
    "`subnetId` names the target datanet by id (or tokenId): a published datanet, or one of the caller's own drafts.",
  security: IDP_COOKIE_SECURITY,
  request: { body: { required: true, content: { "application/json": { schema: PodDraftBodySchema } } } },
  responses: {
    201: jsonContent(CreatedIdSchema, "Draft created"),
    400: commonErrors[400],
    401: commonErrors[401],
  },
});

export const getMyPodRoute = createRoute({
  operationId: "getMyPod",
  middleware: [userAuth, chainReady] as const,
  method: "get",
  path: "/me/pods/{id}",
  tags,
  summary: "One of the caller's pods",
  security: IDP_COOKIE_SECURITY,
  request: { params: IdParams },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ pod: UserPodSchema })), "The pod"),
    401: commonErrors[401],
    404: commonErrors[404],
    503: errorResponse("Indexer not ready"),
  },
});

const PodTxBodySchema = z
  .object({ podId: z.string().openapi({ description: "Must equal the path id" }), txHash: TxHashSchema })
  .openapi("PodTxBody", { example: { podId: EXAMPLE.podId, txHash: EXAMPLE.txHash } });

export const mintPodRoute = createRoute({
  operationId: "mintPod",
  middleware: [userAuth] as const,
  method: "post",
  path: "/me/pods/{id}/mint",
  tags,
  summary: "Record the pod's mint (PodManager.mintPodWithCORE / mintPodWithPrimaryToken)",
  description:
    "The txHash must be a successful mint sent by the caller's wallet to the PodManager whose PodMinted event has owner = the caller's wallet and subnetId = the target datanet's tokenId, not used for any other record.",
  security: IDP_COOKIE_SECURITY,
  request: { params: IdParams, body: { required: true, content: { "application/json": { schema: PodTxBodySchema } } } },
  responses: {
    200: jsonContent(SuccessSchema, "Minted: the pod now carries its tokenId and is active"),
    ...commonErrors,
    503: errorResponse("Chain unavailable"),
  },
});

export const republishPodRoute = createRoute({
  operationId: "republishPod",
  middleware: [userAuth] as const,
  method: "post",
  path: "/me/pods/{id}/republish",
  tags,
  summary: "Record a republish of the pod (PodManager.republishPod)",
  description:
    "The txHash must be a successful republishPod sent by the caller's wallet whose PodRepublished event names this pod's tokenId. The target datanet is taken from the event.",
  security: IDP_COOKIE_SECURITY,
  request: { params: IdParams, body: { required: true, content: { "application/json": { schema: PodTxBodySchema } } } },
  responses: {
    200: jsonContent(SuccessSchema, "Recorded"),
    ...commonErrors,
    503: errorResponse("Chain unavailable"),
  },
});

export const listMyVotedPodsRoute = createRoute({
  operationId: "listMyVotedPods",
  middleware: [userAuth, chainReady] as const,
  method: "get",
  path: "/me/pods/votes/epochs/{epochId}",
  tags,
  summary: "Pods the caller's wallet voted on in an epoch",
  security: IDP_COOKIE_SECURITY,
  request: {
    params: z.object({ epochId: EpochSchema.openapi({ param: { name: "epochId", in: "path" }, type: "integer", example: 1 }) }),
  },
  responses: {
    200: jsonContent(UserPodsEnvelope, "Pods (with metadata) the caller's wallet voted on in that epoch"),
    400: errorResponse("Invalid epoch, or no wallet linked to the account"),
    401: commonErrors[401],
    503: errorResponse("Indexer not ready"),
  },
});

export const PublicPodsQuerySchema = PageQuerySchema.extend({
  "filters[currentEpoch]": EpochSchema.optional().openapi({
    param: { name: "filters[currentEpoch]", in: "query" },
    type: "integer",
    description: "Only pods valid for curation in that epoch",
  }),
  "filters[subnet]": z
    .string()
    .max(100)
    .refine(hasNoNul, NO_NUL)
    .optional()
    .openapi({ param: { name: "filters[subnet]", in: "query" }, description: "Only pods currently in that datanet (its id or tokenId)" }),
});

export const listPublicPodsRoute = createRoute({
  operationId: "listPublicPods",
  middleware: [chainReady] as const,
  method: "get",
  path: "/public/pods",
  tags,
  summary: "Minted pods (with metadata, not banned, not archived), newest first",
  request: { query: PublicPodsQuerySchema },
  responses: {
    200: jsonContent(
      dataEnvelope(z.object({ pods: z.array(PublicPodSchema), pagination: PaginationSchema })),
      "One page of pods",
    ),
    400: commonErrors[400],
    429: commonErrors[429],
    503: errorResponse("Indexer not ready"),
  },
});

export const getPublicPodRoute = createRoute({
  operationId: "getPublicPod",
  middleware: [chainReady] as const,
  method: "get",
  path: "/public/pods/{podId}",
  tags,
  summary: "A public pod",
  request: {
    params: z.object({
      podId: z.string().openapi({ param: { name: "podId", in: "path" }, description: "The pod's id (or its tokenId)" }),
    }),
  },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ pod: PublicPodSchema })), "The pod"),
    404: errorResponse("Unknown, unminted, banned or archived pod"),
    429: commonErrors[429],
    503: errorResponse("Indexer not ready"),
  },
});
