/** Lock positions (spec §4.4 `/locks/{address}`). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { AddressSchema } from "../../schemas/drafts";
import { engagementRoutes } from "../kinds";

export const LockSchema = z
  .object({
    id: z.string().openapi({ description: "The lock's id: its lockupId, which is also its NFT token id" }),
    tokenId: z.string().openapi({ description: "The veCORE lock NFT token id" }),
    amount: z
      .string()
      .openapi({
        description: "Locked CORE, raw integer string in the smallest unit",
        example: "1200000000000000000000",
      }),
  })
  .openapi("Lock", { example: { id: "7", tokenId: "7", amount: "1200000000000000000000" } });

export const listLocksRoute = engagementRoutes.userIndexed("get", "/locks/{address}", "listLocks", {
  summary: "The lock positions a wallet holds now (not withdrawn), by token id",
  request: { params: z.object({ address: AddressSchema.openapi({ param: { name: "address", in: "path" } }) }) },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ locks: z.array(LockSchema) })), "The locks"),
    400: errorResponse("Invalid address"),
  },
});
