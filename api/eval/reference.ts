import type { SurfaceReference } from "../http/reference";

/** The Evaluation API's self-description: `info` of /openapi.json, the /docs page, `/`. */
export const EVAL_REFERENCE: SurfaceReference = {
  title: "Data-Market Evaluation API",
  guides: ["evaluation-api.md"],
  description: `
Evaluation requests judged after a settlement window from peer assessments. Every error is
\`{"error": "..."}\`.

## Credentials
| Credential | Routes | How to get one |
|---|---|---|
| none | \`/health\`, \`POST /api/v1/keys\`, signed attachment URLs | rate-limited per client IP |
| API key (\`ApiKeyBearer\` or \`ApiKeyHeader\`) | \`/api/v1/agents/*\` | \`POST /api/v1/keys\` (self-service where the operator allows it) or the operator's \`npm run eval:key -- --account <name>\`; shown once; send \`Authorization: Bearer <key>\` or \`x-api-key: <key>\` |
`,
};
