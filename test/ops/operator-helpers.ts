/**
 * Test-only helpers of the operator stage (.ci/operator), run from the source checkout with tsx;
 * the services under test run from the pruned build and never load this file.
 *
 *   seed <rpcUrl> <deploymentsFile>   the devnet's demo data (datanets, pods, votes over four
 *                                     epochs) on a chain deployed by `npm run deploy:protocol`
 *   idp <port> <issuer>               a test identity provider: its JWKS at /jwks.json, and
 *                                     GET /token?sub=...&wallet=... signs a cookie value
 */
import http from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import { readDeployment } from "../../chain/deployments";
import { signLocalIdpToken } from "../../api/http/auth/idp-cookie";
import { seedDemo } from "../../devnet/seed";

const [command, ...args] = process.argv.slice(2);

if (command === "seed") {
  const [rpcUrl, file] = args;
  const deployment = rpcUrl && file ? readDeployment(file) : undefined;
  if (!rpcUrl || !deployment) throw new Error("usage: seed <rpcUrl> <deploymentsFile>");
  const { seeded: _seeded, ...counts } = await seedDemo(rpcUrl, deployment);
  console.log(JSON.stringify(counts));
} else if (command === "idp") {
  const port = Number(args[0]);
  const issuer = args[1] ?? "operator-idp";
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = "operator-test-key";
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "ES256" };
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://idp");
    if (url.pathname === "/jwks.json") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [publicJwk] }));
      return;
    }
    if (url.pathname === "/token") {
      const sub = url.searchParams.get("sub") ?? "operator";
      const wallet = (url.searchParams.get("wallet") ?? undefined) as `0x${string}` | undefined;
      const token = await signLocalIdpToken({ sub, wallet }, { privateJwk, issuer, audience: "datamarket-platform" });
      response.writeHead(200, { "content-type": "text/plain" }).end(token);
      return;
    }
    response.writeHead(404).end();
  });
  server.listen(port, "127.0.0.1", () => console.log(`idp: http://127.0.0.1:${port}/jwks.json`));
  process.once("SIGTERM", () => server.close(() => process.exit(0)));
} else {
  console.error("usage: operator-helpers.ts seed <rpcUrl> <deploymentsFile> | idp <port> <issuer>");
  process.exit(2);
}
