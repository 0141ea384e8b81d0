/** Webhook subscriptions (beyond the spec; docs/webhooks.md): the event stream's events POSTed to an agent's URL. */
import { z } from "@hono/zod-openapi";
import { TOKEN_ID } from "../../../db/refs";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { EVENT_KINDS } from "../../../../src/lib/event-log";
import { SuccessSchema } from "../../schemas/common";
import { AddressSchema } from "../../schemas/drafts";
import { platformRoutes } from "../kinds";

const route = platformRoutes(["Webhooks"]);

const EXAMPLE_ID = "5d0f3a9e-2b7c-4e1a-9c6d-8f2e1b3a4c5d";

const tokenId = (description: string) =>
  z.string().regex(TOKEN_ID, "must be a token id (a non-negative integer)").optional().openapi({ description, example: "1" });

export const CreateWebhookBodySchema = z
  .object({
    url: z
      .string()
      .min(1)
      .max(2_048)
      .openapi({
        description: "Where events are POSTed: http or https, resolving to public addresses only",
        example: "https://agent.example.org/hooks/datamarket",
      }),
    kinds: z
      .array(z.enum(EVENT_KINDS))
      .max(EVENT_KINDS.length)
      .optional()
      .openapi({ description: "Event kinds to deliver (the event stream's); omitted or empty: every kind", example: ["vote", "pod_minted"] }),
    datanet: tokenId("Only events of this datanet (its subnetId)"),
    pod: tokenId("Only events of this pod (its token id)"),
    wallet: AddressSchema.optional().openapi({ description: "Only events this wallet takes part in" }),
    replay: z.boolean().optional().openapi({
      description: "true: start from the first event of the log; default: from the events indexed after the subscription",
    }),
  })
  .strict()
  .openapi("CreateWebhookBody", {
    example: { url: "https://agent.example.org/hooks/datamarket", kinds: ["vote"], datanet: "1" },
  });

const WEBHOOK_EXAMPLE = {
  id: EXAMPLE_ID,
  url: "https://agent.example.org/hooks/datamarket",
  kinds: ["vote"],
  filters: { datanet: "1", pod: null, wallet: null },
  status: "active",
  pausedReason: null,
  lastError: null,
  failureCount: 0,
  pending: 0,
  cursor: "73-0-917204b99f438f71",
  lastDeliveredId: "73-0-917204b99f438f71",
  lastDeliveredAt: "2026-11-26T00:38:50.000Z",
  lastAttemptAt: "2026-11-26T00:38:50.000Z",
  nextAttemptAt: "2026-11-26T00:38:51.000Z",
  createdAt: "2026-11-26T00:30:00.000Z",
};

const webhookShape = {
  id: z.string().openapi({ format: "uuid" }),
  url: z.string(),
  kinds: z.array(z.string()).openapi({ description: "Empty: every kind" }),
  filters: z.object({ datanet: z.string().nullable(), pod: z.string().nullable(), wallet: z.string().nullable() }),
  status: z.enum(["active", "paused"]),
  pausedReason: z.string().nullable().openapi({ description: "Why deliveries stopped (paused only); POST …/resume" }),
  lastError: z.string().nullable().openapi({ description: "The last failed attempt's error" }),
  failureCount: z.number().int().openapi({ description: "Failed attempts in a row" }),
  pending: z.number().int().openapi({ description: "Messages taken from the log and not yet acknowledged" }),
  cursor: z.string().openapi({ description: "The last event of the log passed (`0`: none yet)" }),
  lastDeliveredId: z.string().nullable(),
  lastDeliveredAt: z.string().nullable().openapi({ format: "date-time" }),
  lastAttemptAt: z.string().nullable().openapi({ format: "date-time" }),
  nextAttemptAt: z.string().nullable().openapi({ format: "date-time" }),
  createdAt: z.string().openapi({ format: "date-time" }),
};

export const WebhookSchema = z.object(webhookShape).openapi("Webhook", { example: WEBHOOK_EXAMPLE });
export const CreatedWebhookSchema = z
  .object({
    ...webhookShape,
    secret: z.string().openapi({ description: "The HMAC-SHA256 key of the signatures (shown once)" }),
  })
  .openapi("CreatedWebhook", { example: { ...WEBHOOK_EXAMPLE, secret: `whsec_${"Q".repeat(43)}` } });

export const WebhookParamsSchema = z.object({
  webhookId: z
    .string()
    .max(100)
    .openapi({ param: { name: "webhookId", in: "path" }, format: "uuid", example: EXAMPLE_ID }),
});

const notFound = errorResponse("No such subscription of the caller's");

export const createWebhookRoute = route.agentCallerIndexed("post", "/webhooks", "createWebhook", {
  summary: "Subscribe a URL to protocol events (signed POSTs, in block order, retried, reorg-aware)",
  description:
    "The event stream's events (GET /events), each POSTed as the same JSON, with its id, to `url`; a reorg that removes a delivered event sends a retraction `{id, reason: \"reorg\"}`. " +
    "Signed: `X-Webhook-Timestamp` and `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of \"<timestamp>.<body>\">` with the subscription's `secret` (answered once). " +
    "One message at a time per subscription, the next after a 2xx; failures are retried with exponential backoff, then the subscription is paused. See docs/webhooks.md.",
  request: { body: jsonBody(CreateWebhookBodySchema) },
  responses: {
    201: jsonContent(dataEnvelope(CreatedWebhookSchema), "The subscription, with its secret (shown once)"),
    400: errorResponse("Invalid body, a URL that is not http(s) or does not resolve to public addresses, or too many subscriptions"),
  },
});

export const listWebhooksRoute = route.agentCaller("get", "/webhooks", "listWebhooks", {
  summary: "The caller's webhook subscriptions, oldest first",
  responses: { 200: jsonContent(dataEnvelope(z.array(WebhookSchema)), "The subscriptions") },
});

export const getWebhookRoute = route.agentCaller("get", "/webhooks/{webhookId}", "getWebhook", {
  summary: "One subscription: its status, last error, failures in a row and why it is paused",
  request: { params: WebhookParamsSchema },
  responses: { 200: jsonContent(dataEnvelope(WebhookSchema), "The subscription"), 404: notFound },
});

export const deleteWebhookRoute = route.agentCaller("delete", "/webhooks/{webhookId}", "deleteWebhook", {
  summary: "Delete a subscription (deliveries stop)",
  request: { params: WebhookParamsSchema },
  responses: { 200: jsonContent(SuccessSchema, "Deleted"), 404: notFound },
});

export const resumeWebhookRoute = route.agentCaller("post", "/webhooks/{webhookId}/resume", "resumeWebhook", {
  summary: "Resume a paused subscription: deliveries go on from where they stopped, nothing skipped",
  request: { params: WebhookParamsSchema },
  responses: { 200: jsonContent(dataEnvelope(WebhookSchema), "The subscription, active"), 404: notFound },
});
