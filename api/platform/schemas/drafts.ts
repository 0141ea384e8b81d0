/**
 * Request bodies shared by the user routes (POST /me/subnets, POST /me/pods) and the agent routes,
 * which take "the create-draft fields plus txHash" (extend with `TxHashSchema`).
 * Bounds: spec §4.2, §4.3 and §8. Strings are trimmed before their length is checked.
 */
import { z } from "@hono/zod-openapi";
import { getAddress, isAddress } from "viem";
import { EXAMPLE } from "./examples";

/** Longest URL accepted in any URL field (not in the spec; a sane bound). */
export const MAX_URL_LENGTH = 2048;

/** PostgreSQL text cannot hold NUL characters: refuse them up front (400) rather than fail on insert. */
export const hasNoNul = (value: string) => !value.includes("\u0000");
export const NO_NUL = { message: "must not contain NUL characters" };

/** A trimmed string of `min` to `max` characters, without NUL characters. */
export const text = (min: number, max: number) => z.string().trim().min(min).max(max).refine(hasNoNul, NO_NUL);

/** An absolute http(s) URL. */
export const HttpUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(MAX_URL_LENGTH)
  .refine(hasNoNul, NO_NUL)
  .openapi({ format: "uri", example: "https://example.com/article" });

/** An optional http(s) URL; `""` means absent (the live clients send empty strings for unset URLs). */
export const OptionalHttpUrlSchema = z.preprocess((value) => (value === "" ? undefined : value), HttpUrlSchema.nullish());

const optionalUrl = OptionalHttpUrlSchema;

/** A 0x-prefixed 32-byte transaction hash, lower-cased. */
export const TxHashSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte transaction hash")
  .transform((hash) => hash.toLowerCase() as `0x${string}`)
  .openapi({ example: `0x${"ab".repeat(32)}`, description: "Hash of the confirmed on-chain transaction" });

/** A 0x-prefixed 20-byte address (any case), returned lower-case. */
export const AddressSchema = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "must be a 0x-prefixed 20-byte address")
  .transform((value) => getAddress(value).toLowerCase() as `0x${string}`)
  .openapi({ example: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" });

/** The example of a pod draft body (also the agent's, with its txHash). */
export const POD_DRAFT_EXAMPLE = {
  subnetId: EXAMPLE.subnetId,
  podName: "Arctic sea ice",
  url: "https://example.org/ice",
  platform: "web",
  category: "climate",
  podDescription: "Daily sea-ice extent, 1979-today",
  agreeToTerms: true as const,
  imageURL: "https://example.org/ice.png",
};

export const PodDraftBodySchema = z
  .object({
    subnetId: text(1, 100)
      .openapi({ description: "The target datanet: its id (uuid) or its on-chain tokenId" }),
    podName: text(3, 50),
    url: HttpUrlSchema.openapi({ description: "Canonical content URL" }),
    platform: text(2, 50),
    category: text(2, 50),
    podDescription: text(10, 200),
    agreeToTerms: z.literal(true, { error: "must be true" }),
    imageURL: optionalUrl,
    thumbnailURL: optionalUrl,
    pdfURL: optionalUrl,
    videoURL: optionalUrl,
  })
  .openapi("PodDraftBody", { example: POD_DRAFT_EXAMPLE });

export type PodDraftBody = z.infer<typeof PodDraftBodySchema>;

/** The example of a datanet draft body (also the agent's, with its txHash). */
export const SUBNET_DRAFT_EXAMPLE = {
  subnetCreatorType: "team" as const,
  subnetName: "Climate records",
  imageURL: "https://example.org/climate.png",
  subnetDescription: "Open climate datasets, curated by vote",
  onboardingPublishers: "Publish primary sources with a stable URL",
  onboardingVoters: "Vote for complete, well-documented series",
  subnetGoal: "Reliable climate data",
  nativeTokenAddress: EXAMPLE.primaryToken,
  nativeTokenSymbol: "CLIM",
  nativeTokenDecimals: 18,
};

export const SubnetDraftBodySchema = z
  .object({
    subnetCreatorType: z.enum(["individual", "team"]),
    subnetName: text(1, 100),
    imageURL: optionalUrl,
    subnetDescription: text(10, 500),
    onboardingPublishers: text(10, 1000),
    onboardingVoters: text(10, 1000),
    subnetGoal: text(1, 100),
    nativeTokenAddress: AddressSchema.openapi({ description: "Contract address of the datanet's primary token" }),
    nativeTokenSymbol: text(1, 5),
    nativeTokenDecimals: z.number().int().min(1).max(18),
  })
  .openapi("SubnetDraftBody", { example: SUBNET_DRAFT_EXAMPLE });

export type SubnetDraftBody = z.infer<typeof SubnetDraftBodySchema>;
