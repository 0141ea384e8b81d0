/** Lock positions (spec §4.4 `/locks/{address}`). */
import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { userAuth } from "../../middleware";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { IDP_COOKIE_SECURITY } from "../../schemas/common";
import { AddressSchema } from "../../schemas/drafts";

export const LockSchema = z
  .object({
    id: z.string().openapi({ description: "The lock's id: its lockupId, which is also its NFT token id" }),
    tokenId: z.string().openapi({ description: "The veCORE lock NFT token id" }),
    amount: z.string().openapi({ description: "Locked CORE, raw integer string in the smallest unit", example: "1200000000000000000000" }),
  })
  .openapi("Lock", { example: { id: "7", tokenId: "7", amount: "1200000000000000000000" } });

export const listLocksRoute = createRoute({
  operationId: "listLocks",
  middleware: [userAuth, chainReady] as const,
  method: "get",
  path: "/locks/{address}",
  tags: ["Engagement"],
  summary: "The lock positions a wallet holds now (not withdrawn), by token id",
  security: IDP_COOKIE_SECURITY,
  request: { params: z.object({ address: AddressSchema.openapi({ param: { name: "address", in: "path" } }) }) },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ locks: z.array(LockSchema) })), "The locks"),
    400: errorResponse("Invalid address"),
    401: errorResponse("Missing or invalid cookie"),
    503: errorResponse("Indexer not ready"),
  },
});
