/** Zod pieces shared by the engagement (§4.4) and agent (§4.5) routes. */
import { z } from "@hono/zod-openapi";

/** A pod or datanet reference in a path: its id (uuid) or its on-chain tokenId. */
const ref = (name: string, description: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name, in: "path" }, description, example: "3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f" });

export const PodIdParamsSchema = z.object({ podId: ref("podId", "The pod's id (uuid) or its on-chain tokenId") });
export const FeedbackPodParamsSchema = z.object({ id: ref("id", "The pod's id (uuid) or its on-chain tokenId") });
export const SubnetIdParamsSchema = z.object({
  subnetId: ref("subnetId", "The datanet's id (uuid) or its on-chain tokenId"),
});

export const MAX_EPOCH = 2_147_483_647;

/** A positive integer epoch; in a path it arrives as a string of digits. */
export const EpochSchema = z
  .preprocess(
    (value) => (typeof value === "string" && /^\d{1,10}$/.test(value) ? Number(value) : value),
    z.number({ error: "must be an integer" }).int({ error: "must be an integer" }).min(1).max(MAX_EPOCH),
  )
  .openapi({ type: "integer", minimum: 1, example: 3 });

/** Whole-token amount in a JSON body (converted exactly through its decimal form, at most 18 decimals). */
export const TokenAmountSchema = z.number().finite().positive().openapi({ example: 100.5 });
