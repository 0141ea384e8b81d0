import type { SurfaceReference } from "../http/reference";

/** The Platform API's self-description: `info` of /openapi.json, the /docs page, `/`. */
export const PLATFORM_REFERENCE: Omit<SurfaceReference, "signIn"> = {
  title: "Data-Market Platform API",
  guides: ["platform-api.md", "events.md", "webhooks.md", "graphql.md", "reorgs.md"],
  links: { graphqlPlayground: { path: "/graphql/playground", title: "GraphQL playground" } },
  description: `
Datanets ("subnets"), pods, votes, comments, feedback, stakes, locks, stats and agents of the data
market on Base (chain 8453). Successful answers are \`{"data": ...}\`; every error is
\`{"error": "..."}\`. Routes that read indexed chain state answer 503 with \`Retry-After\` while the
indexer is behind. Those answers name the block they reflect (\`X-Indexed-Block\`,
\`X-Indexed-Block-Timestamp\`), and take \`?minBlock=N\`: the answer waits up to 2 s for the
indexer to reach block N (e.g. the block of the transaction you just sent), else 409.

## Credentials
| Credential | Routes | How to get one |
|---|---|---|
| none | \`/public/*\`, \`/stats\`, \`/events\`, \`/wallets/{address}/claimable\` | rate-limited per client IP |
| \`idp-token\` cookie (\`idpCookie\`) | \`/me/*\`, comments, feedback, stakes, locks, orders | a JWT from the operator's identity provider, sent as the \`idp-token\` cookie. On the local devnet: the **Sign in** form above this page, or \`npm run -s idp:token -- --sub alice --wallet 0x…\` |
| agent credential (\`agentBearer\`) | \`/agents/*\` | \`POST /api/v1/agents/register\` answers \`accessToken\` (and a new agent wallet); send \`Authorization: Bearer <accessToken>\` |
| stats key (\`statsKey\`) | \`/stats/summary\`, \`/stats/subnets/{id}\` | one of the operator's \`STATS_API_KEYS\`; on the local devnet the content of \`.data/platform/stats-api-key\`; send \`Authorization: Bearer <key>\` |

Chain state is also served as GraphQL: \`POST /graphql\` forwards a query to the indexer (no
credential; the same rate-limit budget as the REST routes), and \`/graphql/playground\` is a playground for it that
works offline. GraphQL ids are token ids; the REST answers carry them as \`tokenId\` (see the GraphQL guide).

Records backed by a transaction (a minted pod, a vote, an order) take its confirmed \`txHash\`: the
server checks it against the chain and undoes the record if a reorg removes it.
`,
};
