/**
 * Test-only helpers of the operator stage (.ci/operator), run from the source checkout with tsx;
 * the services under test run from the pruned build and never load this file.
 *
 *   seed <rpcUrl> <deploymentsFile> <summaryFile>
 *       the devnet's demo data (datanets, pods, votes over four epochs) on a chain deployed by
 *       `npm run deploy:protocol`; the summary is written to summaryFile
 *   idp <port> <keyFile>
 *       a test identity provider: its JWKS at /jwks.json, GET /token?sub=...&wallet=... signs a
 *       cookie value (issuer IDP_ISSUER); the key pair is kept in keyFile
 *   metadata <platformUrl> <summaryFile> <keyFile>
 *       gives the seeded datanets and pods their metadata through the Platform API, as their
 *       owners (cookies signed with keyFile's key), so the public lists show them
 */
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { localIdpKeyPair, signLocalIdpToken } from "../../api/http/auth/idp-cookie";
import { readDeployment } from "../../chain/deployments";
import { describeDemoMetadata, publishDemoMetadata } from "../../devnet/demo-metadata";
import { seedDemo, type SeedSummary } from "../../devnet/seed";

const [command, ...args] = process.argv.slice(2);
const issuer = process.env.IDP_ISSUER || "operator-idp";

if (command === "seed") {
  const [rpcUrl, file, summaryFile] = args;
  const deployment = rpcUrl && file ? readDeployment(file) : undefined;
  if (!rpcUrl || !deployment || !summaryFile) throw new Error("usage: seed <rpcUrl> <deploymentsFile> <summaryFile>");
  const summary = await seedDemo(rpcUrl, deployment);
  writeFileSync(summaryFile, JSON.stringify(summary));
  const { seeded: _seeded, ...counts } = summary;
  console.log(JSON.stringify(counts));
} else if (command === "idp") {
  const [port, keyFile] = args;
  if (!port || !keyFile) throw new Error("usage: idp <port> <keyFile>");
  const { privateJwk, publicJwk } = await localIdpKeyPair(keyFile);
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://idp");
    if (url.pathname === "/jwks.json") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [{ ...publicJwk, use: "sig" }] }));
      return;
    }
    if (url.pathname === "/token") {
      const sub = url.searchParams.get("sub") ?? "operator";
      const wallet = url.searchParams.get("wallet") ?? undefined;
      const token = await signLocalIdpToken({ sub, wallet }, { privateJwk, issuer, audience: "datamarket-platform" });
      response.writeHead(200, { "content-type": "text/plain" }).end(token);
      return;
    }
    response.writeHead(404).end();
  });
  server.listen(Number(port), "127.0.0.1", () => console.log(`idp: http://127.0.0.1:${port}/jwks.json`));
  process.once("SIGTERM", () => server.close(() => process.exit(0)));
} else if (command === "metadata") {
  const [platformUrl, summaryFile, keyFile] = args;
  if (!platformUrl || !summaryFile || !keyFile) throw new Error("usage: metadata <platformUrl> <summaryFile> <keyFile>");
  const summary = JSON.parse(readFileSync(summaryFile, "utf8")) as SeedSummary;
  const result = await publishDemoMetadata({ platformUrl, summary, idpKeyFile: keyFile });
  console.log(describeDemoMetadata(result));
  if ([...result.subnets, ...result.pods].some((item) => item.status === "failed")) process.exit(1);
} else {
  console.error("usage: operator-helpers.ts seed ... | idp ... | metadata ... (see the file's header)");
  process.exit(2);
}
