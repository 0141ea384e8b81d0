/** Pod routes (spec §4.2): definitions whose zod schemas validate requests and generate the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { EpochSchema } from "../../schemas/engagement";
import { commonErrors, dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { PublicPodSchema, UserPodSchema } from "../../presenters/pod";
import { hasNoNul, NO_NUL, PodDraftBodySchema, TxHashSchema } from "../../schemas/drafts";
import { CreatedIdSchema, PageQuerySchema, PaginationSchema, SuccessSchema } from "../../schemas/common";
import { EXAMPLE } from "../../schemas/examples";
import { platformRoutes } from "../kinds";

const route = platformRoutes(["Pods"]);

/** Epoch numbers in paths and filters: integers from 1. */

const IdParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", description: "The pod's id" }),
});

const UserPodsEnvelope = dataEnvelope(z.object({ pods: z.array(UserPodSchema) }));

export const listMyPodsRoute = route.userIndexed("get", "/me/pods", "listMyPods", {
  summary: "Pods created by the caller (drafts, minted, archived)",
  responses: { 200: jsonContent(UserPodsEnvelope, "The caller's pods, newest first") },
});

export const createPodRoute = route.user("post", "/me/pods", "createPod", {
  summary: "Create a pod draft",
  description:
    "`subnetId` names the target datanet by id (or tokenId): a published datanet, or one of the caller's own drafts.",
  request: { body: jsonBody(PodDraftBodySchema) },
  responses: { 201: jsonContent(CreatedIdSchema, "Draft created"), 400: commonErrors[400] },
});

export const getMyPodRoute = route.userIndexed("get", "/me/pods/{id}", "getMyPod", {
  summary: "One of the caller's pods",
  request: { params: IdParams },
  responses: { 200: jsonContent(dataEnvelope(z.object({ pod: UserPodSchema })), "The pod"), 404: commonErrors[404] },
});

const PodTxBodySchema = z
  .object({ podId: z.string().openapi({ description: "Must equal the path id" }), txHash: TxHashSchema })
  .openapi("PodTxBody", { example: { podId: EXAMPLE.podId, txHash: EXAMPLE.txHash } });

/** A chain-verified record of the pod at `id`: every common error, 503 when the chain cannot be asked. */
const podTx = { params: IdParams, body: jsonBody(PodTxBodySchema) };
const recordErrors = { ...commonErrors, 503: errorResponse("Chain unavailable") };

export const mintPodRoute = route.user("post", "/me/pods/{id}/mint", "mintPod", {
  summary: "Record the pod's mint (PodManager.mintPodWithCORE / mintPodWithPrimaryToken)",
  description:
    "The txHash must be a successful mint sent by the caller's wallet to the PodManager whose PodMinted event has owner = the caller's wallet and subnetId = the target datanet's tokenId, not used for any other record.",
  request: podTx,
  responses: {
    200: jsonContent(SuccessSchema, "Minted: the pod now carries its tokenId and is active"),
    ...recordErrors,
  },
});

export const republishPodRoute = route.user("post", "/me/pods/{id}/republish", "republishPod", {
  summary: "Record a republish of the pod (PodManager.republishPod)",
  description:
    "The txHash must be a successful republishPod sent by the caller's wallet whose PodRepublished event names this pod's tokenId. The target datanet is taken from the event.",
  request: podTx,
  responses: { 200: jsonContent(SuccessSchema, "Recorded"), ...recordErrors },
});

export const listMyVotedPodsRoute = route.userIndexed("get", "/me/pods/votes/epochs/{epochId}", "listMyVotedPods", {
  summary: "Pods the caller's wallet voted on in an epoch",
  request: {
    params: z.object({
      epochId: EpochSchema.openapi({ param: { name: "epochId", in: "path" }, type: "integer", example: 1 }),
    }),
  },
  responses: {
    200: jsonContent(UserPodsEnvelope, "Pods (with metadata) the caller's wallet voted on in that epoch"),
    400: errorResponse("Invalid epoch, or no wallet linked to the account"),
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
  cursor: z
    .string()
    .max(200)
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description:
        "The `nextCursor` of the previous page, unchanged: the next page after it, read by a seek whatever its depth. Pass the same `search` and `filters` as for that page (else 400); `limit` may change. Not with `page` above 1 (400).",
    }),
});

export const listPublicPodsRoute = route.public("get", "/public/pods", "listPublicPods", {
  summary: "Minted pods (with metadata, not banned, not archived), newest first",
  description:
    "Paged by `page` and `limit`, or by `cursor`: each response carries `nextCursor`, the position after its last pod. A crawl of the whole list should follow `nextCursor` (each page costs the same at any depth); a deep `page` costs a walk to its offset once per change of the list. With a cursor, `pagination.page` is the page its first pod falls on at the current `limit`.",
  request: { query: PublicPodsQuerySchema },
  responses: {
    200: jsonContent(
      dataEnvelope(
        z.object({
          pods: z.array(PublicPodSchema),
          pagination: PaginationSchema,
          nextCursor: z.string().nullable().openapi({
            example: "cDE6MzI6MTA6X2tTb3pNMko3YTV3",
            description:
              "Pass as `cursor` for the page after this one; null on the last page. Its page stays exact while pods are minted or removed meanwhile (it starts after this page's last pod).",
          }),
        }),
      ),
      "One page of pods",
    ),
    400: commonErrors[400],
  },
});

export const getPublicPodRoute = route.public("get", "/public/pods/{podId}", "getPublicPod", {
  summary: "A public pod",
  request: {
    params: z.object({
      podId: z.string().openapi({ param: { name: "podId", in: "path" }, description: "The pod's id (or its tokenId)" }),
    }),
  },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ pod: PublicPodSchema })), "The pod"),
    404: errorResponse("Unknown, unminted, banned or archived pod"),
  },
});
