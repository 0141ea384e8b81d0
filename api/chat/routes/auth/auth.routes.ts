import { createRoute, z } from "@hono/zod-openapi";
import { errorResponse, jsonContent } from "../../../http/openapi";

export const WalletAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed address of 40 hex characters")
  .openapi({ example: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" });

const NonceRequest = z.object({ walletAddress: WalletAddressSchema }).openapi("NonceRequest");

const NonceResponse = z
  .object({
    nonce: z.string().openapi({ format: "uuid", description: "Valid for 5 minutes, usable once" }),
    message: z.string().openapi({ description: "Sign this text unchanged with EIP-191 personal_sign" }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("NonceResponse");

const VerifyRequest = z
  .object({
    walletAddress: WalletAddressSchema,
    signature: z.string().min(1).max(20_000).openapi({ description: "Signature of `message` (EOA, ERC-1271 or ERC-6492)" }),
    nonce: z.string().min(1).max(100),
  })
  .openapi("VerifyRequest");

const VerifyResponse = z
  .object({
    token: z.string().openapi({ description: "Session token for `Authorization: Bearer`, valid 24 hours" }),
    walletAddress: z.string().openapi({ description: "Lower case" }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("VerifyResponse");

export const nonceRoute = createRoute({
  operationId: "issueNonce",
  method: "post",
  path: "/auth/nonce",
  tags: ["Auth"],
  summary: "Start a wallet sign-in: a single-use nonce and the message to sign",
  request: { body: { content: { "application/json": { schema: NonceRequest } }, required: true } },
  responses: {
    200: jsonContent(NonceResponse, "Nonce issued"),
    400: errorResponse("Missing or malformed wallet address"),
    429: errorResponse("Rate limited"),
  },
});

export const verifyRoute = createRoute({
  operationId: "verify",
  method: "post",
  path: "/auth/verify",
  tags: ["Auth"],
  summary: "Finish a wallet sign-in: a session token valid 24 hours",
  request: { body: { content: { "application/json": { schema: VerifyRequest } }, required: true } },
  responses: {
    200: jsonContent(VerifyResponse, "Signed in"),
    400: errorResponse("Missing or malformed fields"),
    401: errorResponse("Unknown, used, expired or foreign nonce, or a signature that does not match"),
    429: errorResponse("Rate limited"),
  },
});
