/** Wallet routes: what a wallet can claim now (beyond the spec). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse } from "../../../http/openapi";
import { AddressSchema } from "../../schemas/drafts";
import { platformRoutes } from "../kinds";

const wei = (description: string, example: string) =>
  z.string().openapi({ description: `${description}; raw integer string in the smallest unit (wei)`, example });
const address = (description: string, example: string) => z.string().openapi({ description, example });

const SharesSchema = z
  .object({
    core: wei("CORE", "250000000000000000000"),
    primary: wei("The datanet's primary token", "100000000000000000000"),
  })
  .openapi("ClaimableShares");

export const ClaimableEntrySchema = z
  .object({
    podId: z.string().openapi({ description: "The pod's on-chain token id", example: "1" }),
    epoch: z.number().int().openapi({ description: "A closed epoch", example: 3 }),
    subnetId: z.string().openapi({ description: "The datanet the pod's votes of that epoch count for", example: "1" }),
    primaryToken: address(
      "That datanet's primary token (null if the datanet is not indexed)",
      "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    ).nullable(),
    owner: SharesSchema.openapi({
      description:
        "= PodManager.podOwnerClaimable(podId, epoch); listed for the pod's current owner (the claim pays whoever owns the pod then)",
    }),
    voter: SharesSchema.openapi({ description: "= PodManager.voterClaimable(address, podId, epoch)" }),
  })
  .openapi("ClaimableEntry");

const TotalsSchema = z.object({
  owner: wei("Sum of the owner shares", "250000000000000000000"),
  voter: wei("Sum of the voter shares", "37500000000000000000"),
  total: wei("owner + voter", "287500000000000000000"),
});

export const WalletClaimableSchema = z
  .object({
    address: address("The wallet, lower case", "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"),
    currentEpoch: z.number().int().openapi({
      description: "The open epoch (that of the latest indexed block): it and later epochs are not claimable yet",
      example: 4,
    }),
    coreToken: address("The CORE token", "0x5fbdb2315678afecb367f032d93f642f64180aa3"),
    entries: z.array(ClaimableEntrySchema).openapi({
      description: "Per pod and closed epoch with something unclaimed, by pod then epoch; claimed shares are gone",
    }),
    totals: z.object({
      core: TotalsSchema,
      primary: z
        .array(
          TotalsSchema.extend({ token: address("The primary token", "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512") }),
        )
        .openapi({ description: "Per primary token (datanets may differ in theirs)" }),
    }),
  })
  .openapi("WalletClaimable");

/** A response captured from the test suite (the seeded devnet, voter1 in epoch 5). */
const EXAMPLE = {
  data: {
    address: "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
    currentEpoch: 5,
    coreToken: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    entries: [
      {
        podId: "1",
        epoch: 2,
        subnetId: "2",
        primaryToken: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
        owner: { core: "0", primary: "0" },
        voter: { core: "200000000000000000000", primary: "0" },
      },
      {
        podId: "4",
        epoch: 3,
        subnetId: "1",
        primaryToken: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
        owner: { core: "0", primary: "0" },
        voter: { core: "333333333333333333333", primary: "133333333333333333333" },
      },
    ],
    totals: {
      core: { owner: "0", voter: "533333333333333333333", total: "533333333333333333333" },
      primary: [
        {
          token: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
          owner: "0",
          voter: "133333333333333333333",
          total: "133333333333333333333",
        },
      ],
    },
  },
};

export const getWalletClaimableRoute = platformRoutes(["Emissions"]).public(
  "get",
  "/wallets/{address}/claimable",
  "getWalletClaimable",
  {
    summary: "Emissions a wallet can claim now, per pod and epoch, exact to the wei",
    description:
      "Computed from indexed state exactly as PodManager computes podOwnerClaimable and voterClaimable (same rounding). " +
      "Only closed epochs count, and only shares not claimed yet. The owner share is listed for the pod's current owner. " +
      "No credentials: chain state is public.",
    request: { params: z.object({ address: AddressSchema.openapi({ param: { name: "address", in: "path" } }) }) },
    responses: {
      200: {
        content: { "application/json": { schema: dataEnvelope(WalletClaimableSchema), example: EXAMPLE } },
        description: "The wallet's unclaimed shares and their totals",
      },
      400: errorResponse("Invalid address"),
    },
  },
);
