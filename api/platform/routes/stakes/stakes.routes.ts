/** Targeted stakes (spec §4.4 `/stakes/boost`). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { TxHashSchema } from "../../schemas/drafts";
import { EXAMPLE } from "../../schemas/examples";
import { engagementRoutes } from "../kinds";

export const BoostBodySchema = z
  .object({
    amount: z
      .string()
      .regex(/^\d{1,60}(\.\d{1,18})?$/, 'must be a decimal string with at most 18 decimals, such as "250.5"')
      .refine((value) => /[1-9]/.test(value), "must be greater than 0")
      .openapi({ example: "250.5", description: "CORE, decimal string kept exactly as sent" }),
    subnetId: z.string().min(1).max(100).openapi({ description: "The datanet's id (uuid) or its on-chain tokenId" }),
    txHash: TxHashSchema,
  })
  .openapi("BoostBody", { example: { amount: "250.5", subnetId: EXAMPLE.subnetId, txHash: EXAMPLE.txHash } });

export const boostRoute = engagementRoutes.user("post", "/stakes/boost", "boost", {
  summary: "Record a confirmed targeted stake (SubnetManager.boost) of the caller's wallet",
  request: { body: jsonBody(BoostBodySchema) },
  responses: {
    201: jsonContent(
      dataEnvelope(z.object({ id: z.string().openapi({ example: "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b" }) })),
      "Stake recorded",
    ),
    400: errorResponse("Invalid body, no wallet, or a txHash that does not prove this stake"),
    404: errorResponse("Datanet not found"),
    409: errorResponse("Transaction already recorded"),
    503: errorResponse("Chain unavailable"),
  },
});
