import { z } from "@hono/zod-openapi";
import { errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { chatRoutes } from "../kinds";

const route = chatRoutes(["Auth"]);

export const WalletAddressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed address of 40 hex characters")
  .openapi({ example: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" });

const WALLET_EXAMPLE = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const NONCE_EXAMPLE = "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed";
const EXPIRES_AT_EXAMPLE = "2026-01-14T16:10:00.000Z";

const NonceRequest = z.object({ walletAddress: WalletAddressSchema }).openapi("NonceRequest");

const NonceResponse = z
  .object({
    nonce: z.string().openapi({ format: "uuid", description: "Valid for 5 minutes, usable once" }),
    message: z.string().openapi({ description: "Sign this text unchanged with EIP-191 personal_sign" }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("NonceResponse", {
    example: {
      nonce: NONCE_EXAMPLE,
      message: [
        "Data-Market Chat Server asks you to sign in with your wallet.",
        "",
        "Address: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        `Nonce: ${NONCE_EXAMPLE}`,
        `Expires at: ${EXPIRES_AT_EXAMPLE}`,
        "",
        "Signing proves you control this address. It sends no transaction and costs nothing.",
      ].join("\n"),
      expiresAt: EXPIRES_AT_EXAMPLE,
    },
  });

const VerifyRequest = z
  .object({
    walletAddress: WalletAddressSchema,
    signature: z
      .string()
      .min(1)
      .max(20_000)
      .openapi({ description: "Signature of `message` (EOA, ERC-1271 or ERC-6492)" }),
    nonce: z.string().min(1).max(100),
  })
  .openapi("VerifyRequest", {
    example: { walletAddress: WALLET_EXAMPLE, signature: `0x${"4e".repeat(64)}1b`, nonce: NONCE_EXAMPLE },
  });

const VerifyResponse = z
  .object({
    token: z.string().openapi({ description: "Session token for `Authorization: Bearer`, valid 24 hours" }),
    walletAddress: z.string().openapi({ description: "Lower case" }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("VerifyResponse", {
    example: {
      token: "ExampleOnly_NotARealSessionToken_0123456789",
      walletAddress: WALLET_EXAMPLE,
      expiresAt: "2026-01-15T16:05:00.000Z",
    },
  });

export const nonceRoute = route.open("post", "/auth/nonce", "issueNonce", {
  summary: "Start a wallet sign-in: a single-use nonce and the message to sign",
  request: { body: jsonBody(NonceRequest) },
  responses: {
    200: jsonContent(NonceResponse, "Nonce issued"),
    400: errorResponse("Missing or malformed wallet address"),
  },
});

export const verifyRoute = route.open("post", "/auth/verify", "verify", {
  summary: "Finish a wallet sign-in: a session token valid 24 hours",
  request: { body: jsonBody(VerifyRequest) },
  responses: {
    200: jsonContent(VerifyResponse, "Signed in"),
    400: errorResponse("Missing or malformed fields"),
    401: errorResponse("Unknown, used, expired or foreign nonce, or a signature that does not match"),
  },
});
