import type { SurfaceReference } from "../http/reference";

/** The chat server's self-description: `info` of /openapi.json, the /docs page, `/`. */
export const CHAT_REFERENCE: SurfaceReference = {
  title: "Data-Market Chat Server",
  guides: ["chat-server.md", "platform-api.md"],
  description: `
Wallet sign-in, pod minting and emission claims sent by the server's wallet, and an assistant.
Every error is \`{"error": "..."}\`.

## Credentials
| Credential | Routes | How to get one |
|---|---|---|
| none | \`/health\`, \`/auth/nonce\`, \`/auth/verify\` | rate-limited per client IP |
| wallet session (\`walletSession\`) | every other route | \`POST /auth/nonce {"walletAddress"}\` answers a \`message\`; sign it with the wallet (EIP-191 \`personal_sign\`; smart wallets by ERC-1271/6492); \`POST /auth/verify {"walletAddress","signature","nonce"}\` answers a \`token\` valid 24 hours; send \`Authorization: Bearer <token>\` |
`,
};
