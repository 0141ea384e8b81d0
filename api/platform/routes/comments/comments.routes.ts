/** Comments on pods (spec §4.4): cookie auth; the pod is a public pod (minted, with metadata, not archived). */
import { z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { routeKind } from "../../../http/route";
import { userAuth } from "../../middleware";
import { IDP_COOKIE_SECURITY } from "../../schemas/common";
import { PodIdParamsSchema } from "../../schemas/engagement";
import { EXAMPLE } from "../../schemas/examples";

const COMMENT_ID_EXAMPLE = "5a1e7c3b-9d2f-4b6a-8e0c-1f2a3b4c5d6e";

export const COMMENT_MAX_LENGTH = 2_000;

export const CommentSchema = z
  .object({
    id: z.string(),
    comment: z.string(),
    createdAt: z.iso.datetime(),
    userName: z.string().openapi({ description: "The author's username, else their wallet address, else 'Anonymous'" }),
    thumbnailURL: z.string().nullable().openapi({ description: "The author's avatar" }),
  })
  .openapi("Comment", {
    example: {
      id: COMMENT_ID_EXAMPLE,
      comment: "Useful for the 2026 report",
      createdAt: EXAMPLE.updatedAt,
      userName: "alice",
      thumbnailURL: "https://example.org/alice.png",
    },
  });

export const CreateCommentBodySchema = z
  .object({
    podId: z.string().min(1).max(100).openapi({ description: "Must equal the path's podId" }),
    comment: z.string().trim().min(1).max(COMMENT_MAX_LENGTH),
  })
  .openapi("CreateCommentBody", { example: { podId: EXAMPLE.podId, comment: "Useful for the 2026 report" } });

/** The engagement cookie routes that read chain tables; their documents name no 503. */
const route = routeKind({
  tags: ["Engagement"],
  middleware: [userAuth, chainReady],
  security: IDP_COOKIE_SECURITY,
  responses: { 401: errorResponse("Missing or invalid cookie"), 404: errorResponse("Pod not found") },
});

export const listCommentsRoute = route("get", "/pods/{podId}/comments", "listComments", {
  summary: "A pod's comments, oldest first",
  request: { params: PodIdParamsSchema },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ comments: z.array(CommentSchema) })), "The comments"),
    400: errorResponse("Invalid input"),
  },
});

export const createCommentRoute = route("post", "/pods/{podId}/comments", "createComment", {
  summary: "Comment on a pod",
  request: { params: PodIdParamsSchema, body: jsonBody(CreateCommentBodySchema) },
  responses: {
    201: jsonContent(
      dataEnvelope(z.object({ id: z.string().openapi({ example: COMMENT_ID_EXAMPLE }) })),
      "Comment stored",
    ),
    400: errorResponse("Invalid body, or podId differs from the path"),
  },
});
