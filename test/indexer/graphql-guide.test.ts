/**
 * docs/graphql.md against the real stack: a seeded devnet, the indexer, and the Platform API over
 * HTTP with the seed's demo metadata (so REST pods have uuids). Each of the guide's ten example
 * queries runs against the indexer's /graphql and through the Platform API's POST /graphql, with no
 * errors, the same answer both ways, and values the contracts or the REST routes confirm. The
 * offline playground (GET /graphql/playground) is checked over HTTP: it and its assets come from
 * this origin only. The forwarding route's own errors are flat, and an unreachable indexer is 503.
 */
import fs from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";
import { formatEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config";
import { IDP_COOKIE, localIdpKeyPair, signLocalIdpToken } from "../../api/http/auth/idp-cookie";
import { graphqlExamples } from "../../api/http/graphql-playground";
import { createPlatformApp } from "../../api/platform/app";
import type { PlatformDeps } from "../../api/platform/app-services";
import { roleAccount } from "../../devnet/accounts";
import { publishDemoMetadata } from "../../devnet/demo-metadata";
import type { Indexer } from "../../ops/indexer";
import type { Devnet } from "../support/chain";
import type { FreshDatabase } from "../support/database";
import { startSeededStack, type SeededStack } from "../support/seeded-stack";

const GUIDE = fs.readFileSync("docs/graphql.md", "utf8");
const EXAMPLES = graphqlExamples(GUIDE);

let stack: SeededStack;
let keyFile: string;
let devnet: Devnet;
let database: FreshDatabase;
let indexer: Indexer;
let platformUrl: string;
let platformDeps: PlatformDeps;

beforeAll(async () => {
  stack = await startSeededStack({ name: "graphql-guide", withPonderUrl: true });
  ({ keyFile, devnet, database, indexer, platformUrl, platformDeps } = stack);
  await publishDemoMetadata({ platformUrl, summary: devnet.seed!, idpKeyFile: keyFile });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

type GraphqlAnswer = { data?: any; errors?: unknown };

async function graphql(url: string, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: GraphqlAnswer }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as GraphqlAnswer };
}

/** Runs an example on the indexer and through the Platform API; both must answer the same data without errors. */
async function run(example: number, variables?: Record<string, unknown>): Promise<any> {
  const query = EXAMPLES[example - 1]!.query;
  const direct = await graphql(`${indexer.url}/graphql`, query, variables);
  expect(direct.status, `example ${example}`).toBe(200);
  expect(direct.body.errors, `example ${example}`).toBeUndefined();
  const forwarded = await graphql(`${platformUrl}/graphql`, query, variables);
  expect(forwarded.status).toBe(200);
  expect(forwarded.body).toEqual(direct.body);
  return direct.body.data;
}

async function rest(urlPath: string, cookie?: string): Promise<any> {
  const response = await fetch(`${platformUrl}/api/v1${urlPath}`, { headers: cookie ? { Cookie: cookie } : {} });
  expect(response.status, urlPath).toBe(200);
  return ((await response.json()) as { data: unknown }).data;
}

const p = () => devnet.protocol;
const lower = (address: string) => address.toLowerCase();
const voter1 = lower(roleAccount("voter1").address);
const curatorB = lower(roleAccount("curatorB").address);
const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);

describe("docs/graphql.md: what it says of the schema is the served schema's", () => {
  it("names query fields that exist, plural arguments, page fields and filter suffixes as introspection shows them", async () => {
    const introspection = `{
      __schema { queryType { fields { name args { name } } } }
      page: __type(name: "podPage") { fields { name } }
      pageInfo: __type(name: "PageInfo") { fields { name } }
      podFilter: __type(name: "podFilter") { inputFields { name } }
      voteFilter: __type(name: "voteFilter") { inputFields { name } }
    }`;
    const { status, body } = await graphql(`${indexer.url}/graphql`, introspection);
    expect(status).toBe(200);
    const fields = new Map<string, string[]>(
      (body.data.__schema.queryType.fields as Array<{ name: string; args: Array<{ name: string }> }>).map((f) => [f.name, f.args.map((a) => a.name)]),
    );
    // the entities table: "`singular` / `plural`" (or "`…s`") in its first column
    const table = GUIDE.slice(GUIDE.indexOf("### Entities and relations"), GUIDE.indexOf("## Ten example queries"));
    const named = [...table.matchAll(/^\| ([^|]+) \|/gm)].flatMap((row) => [...row[1]!.matchAll(/`([A-Za-z_]+)`(?: \/ `(…s|[A-Za-z_]+)`)?/g)]);
    expect(named.length).toBeGreaterThan(20);
    for (const [, singular, plural] of named) {
      expect(fields.has(singular!), singular).toBe(true);
      const pluralName = plural === "…s" ? `${singular}s` : plural;
      if (pluralName) {
        expect(fields.get(pluralName), pluralName).toEqual(["where", "orderBy", "orderDirection", "before", "after", "limit", "offset"]);
      }
    }
    expect(fields.has("_meta")).toBe(true);
    expect(body.data.page.fields.map((f: { name: string }) => f.name)).toEqual(["items", "pageInfo", "totalCount"]);
    expect(body.data.pageInfo.fields.map((f: { name: string }) => f.name).sort()).toEqual(["endCursor", "hasNextPage", "hasPreviousPage", "startCursor"]);
    const podFilter = new Set(body.data.podFilter.inputFields.map((f: { name: string }) => f.name));
    for (const name of ["AND", "OR", "id_gt", "id_lte", "id_in", "id_not_in", "owner_contains", "owner_starts_with", "owner_not_ends_with", "invalidReason_contains_nocase"]) {
      expect(podFilter.has(name), name).toBe(true);
    }
    expect(podFilter.has("owner_contains_nocase")).toBe(false);
    const voteFilter = body.data.voteFilter.inputFields.map((f: { name: string }) => f.name);
    expect(voteFilter.filter((name: string) => name.startsWith("upVote"))).toEqual(["upVote", "upVote_not", "upVote_in", "upVote_not_in"]);
    const tooMany = await graphql(`${indexer.url}/graphql`, "{ pods(limit: 1001) { totalCount } }");
    expect(JSON.stringify(tooMany.body.errors)).toContain("1000");
    const intLiteral = await graphql(`${indexer.url}/graphql`, "{ pod(id: 1) { id } }");
    expect(intLiteral.body.errors).toBeDefined();
  });
});

describe("docs/graphql.md: the ten example queries on the seeded devnet", () => {
  it("has ten fenced graphql examples, each under its own heading", () => {
    expect(EXAMPLES).toHaveLength(10);
    expect(EXAMPLES.map((e) => e.title)).toEqual(EXAMPLES.map((_, i) => expect.stringMatching(new RegExp(`^${i + 1}\\. `))));
    // the seed's addresses named in the guide are the ones the examples use
    expect(GUIDE).toContain(voter1);
    expect(GUIDE).toContain(curatorB);
  });

  it("1. the pods of a datanet: the pods the PodManager puts in datanet 1", async () => {
    const { datanet } = await run(1);
    const nextPodId = await p().read<bigint>("PodManager", "nextPodId");
    const inDatanet: string[] = [];
    for (let id = 1n; id < nextPodId; id++) {
      const pod = await p().read<{ subnetId: bigint }>("PodManager", "getPod", [id]);
      if (pod.subnetId === 1n) inDatanet.push(id.toString());
    }
    expect(inDatanet.length).toBeGreaterThan(0);
    expect(ids(datanet.pods.items)).toEqual(inDatanet);
    expect(datanet.pods.totalCount).toBe(inDatanet.length);
    expect(datanet.owner).toBe(lower(await p().read<string>("SubnetManager", "ownerOf", [1n])));
  });

  it("2. one pod with its votes: every Voted log of pod 1; its epoch-1 votes are REST's public votes (ids equal, whole CORE = wei / 10^18)", async () => {
    const { pod } = await run(2);
    const logs = await p().publicClient.getContractEvents({
      address: p().address("PodManager"),
      abi: p().abis.PodManager,
      eventName: "Voted",
      args: { podId: 1n },
      fromBlock: 0n,
    });
    expect(pod.votes.totalCount).toBe(logs.length);
    expect(pod.votes.items.map((v: { id: string }) => v.id)).toEqual(logs.map((l) => `${l.transactionHash}-${l.logIndex}`));
    const up = pod.votes.items.filter((v: { upVote: boolean }) => v.upVote).reduce((sum: bigint, v: { votes: string }) => sum + BigInt(v.votes), 0n);
    expect(up.toString()).toBe(pod.cumulativeUpVotes);
    expect(pod.datanet.id).toBe(pod.subnetId);

    const { podVotes } = await rest("/public/pods/1/votes/epochs/1");
    const epoch1 = pod.votes.items.filter((v: { epoch: string }) => v.epoch === "1");
    expect(podVotes.length).toBeGreaterThan(0);
    expect(podVotes.map((v: { id: string }) => v.id)).toEqual(epoch1.map((v: { id: string }) => v.id));
    expect(podVotes.map((v: { votes: number }) => v.votes)).toEqual(epoch1.map((v: { votes: string }) => Number(formatEther(BigInt(v.votes)))));
    expect(podVotes.map((v: { createdAt: string }) => v.createdAt)).toEqual(
      epoch1.map((v: { timestamp: string }) => new Date(Number(v.timestamp) * 1000).toISOString()),
    );
  });

  it("3. a voter's votes in an epoch add up to the contract's votesCastedByVoterForEpoch", async () => {
    const { votes, voterEpoch } = await run(3);
    expect(votes.items.length).toBeGreaterThan(0);
    const cast = await p().read<bigint>("PodManager", "votesCastedByVoterForEpoch", [voter1, 1n]);
    expect(voterEpoch.votesCast).toBe(cast.toString());
    expect(votes.items.reduce((sum: bigint, v: { votes: string }) => sum + BigInt(v.votes), 0n)).toBe(cast);
  });

  it("4. a datanet with its epochs: positiveNetVotes per epoch = subnetPositiveNetVotes", async () => {
    const { datanet } = await run(4);
    expect(datanet.epochs.items.length).toBeGreaterThan(0);
    for (const row of datanet.epochs.items as Array<{ epoch: string; positiveNetVotes: string }>) {
      const net = await p().read<bigint>("PodManager", "subnetPositiveNetVotes", [2n, BigInt(row.epoch)]);
      expect(row.positiveNetVotes, `epoch ${row.epoch}`).toBe(net.toString());
    }
    const [emissionsCore] = await p().read<[bigint, bigint]>("SubnetManager", "emissionsPerEpochAt", [2n, BigInt(await p().currentEpoch())]);
    expect(datanet.emissionsPerEpochCORE).toBe(emissionsCore.toString());
  });

  it("5. the claims of a wallet: its owner claims, each flagged claimed on chain", async () => {
    const { claims } = await run(5);
    expect(claims.totalCount).toBeGreaterThan(0);
    for (const claim of claims.items as Array<{ kind: string; podId: string; epoch: string }>) {
      expect(claim.kind).toBe("owner");
      expect(await p().read<boolean>("PodManager", "hasPodOwnerClaimedEmissions", [BigInt(claim.epoch), BigInt(claim.podId)])).toBe(true);
    }
  });

  it("6. the locks of an owner are REST's /locks/{address}: same ids, same wei amounts, as VeCore holds them", async () => {
    const { locks } = await run(6);
    expect(locks.items.length).toBeGreaterThan(0);
    const { privateJwk } = await localIdpKeyPair(keyFile);
    const cookie = `${IDP_COOKIE}=${await signLocalIdpToken({ sub: "graphql-guide", wallet: voter1 }, { privateJwk })}`;
    const restLocks = (await rest(`/locks/${voter1}`, cookie)).locks as Array<{ id: string; tokenId: string; amount: string }>;
    expect(restLocks).toEqual(locks.items.map((l: { id: string; amount: string }) => ({ id: l.id, tokenId: l.id, amount: l.amount })));
    for (const lock of locks.items as Array<{ id: string; amount: string; votingPower: string }>) {
      const [amount, , , votingPower] = await p().read<[bigint, bigint, bigint, bigint]>("VeCore", "lockupData", [BigInt(lock.id)]);
      expect([lock.amount, lock.votingPower]).toEqual([amount.toString(), votingPower.toString()]);
    }
  });

  it("7. every pod, page by page with after: each pod once, in token id order", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const { pods } = await run(7, { after });
      pages++;
      expect(pods.totalCount).toBe(4);
      seen.push(...ids(pods.items));
      if (!pods.pageInfo.hasNextPage) break;
      after = pods.pageInfo.endCursor;
      expect(pages).toBeLessThan(10);
    }
    const nextPodId = await p().read<bigint>("PodManager", "nextPodId");
    expect(seen).toEqual(Array.from({ length: Number(nextPodId) - 1 }, (_, i) => String(i + 1)));
    expect(pages).toBe(2);
  });

  it("8. filters: valid in epoch 4 = REST's filters[currentEpoch]=4 (pods with metadata); down-votes; big votes; flagged pods", async () => {
    const data = await run(8);
    const valid = ids(data.validInEpoch.items);
    expect(valid.length).toBeGreaterThan(0);
    const listed = (await rest("/public/pods?filters[currentEpoch]=4&limit=100")).pods as Array<{ tokenId: number }>;
    expect(listed.length).toBeGreaterThan(0);
    for (const pod of listed) expect(valid).toContain(String(pod.tokenId));
    for (const id of valid) {
      const pod = await p().read<{ mintEpoch: bigint; validityEpoch: bigint; invalidFromEpoch: bigint }>("PodManager", "getPod", [BigInt(id)]);
      expect(pod.mintEpoch <= 4n && pod.validityEpoch >= 4n && pod.invalidFromEpoch === 0n, `pod ${id}`).toBe(true);
    }
    expect(data.downVotes.items.length).toBeGreaterThan(0);
    for (const vote of data.downVotes.items) expect(["1", "2"]).toContain(vote.podId);
    const logs = await p().publicClient.getContractEvents({
      address: p().address("PodManager"),
      abi: p().abis.PodManager,
      eventName: "Voted",
      fromBlock: 0n,
    });
    expect(data.bigVotes.totalCount).toBe(logs.filter((l) => (l.args as { votes: bigint }).votes >= 10n ** 20n).length);
    expect(data.flagged.items.length).toBeGreaterThan(0);
    for (const pod of data.flagged.items) expect(pod.invalidFromEpoch).not.toBeNull();
  });

  it("9. REST ids ↔ GraphQL ids: tokenId → pod(id), pod.subnetId = the REST datanet's tokenId, /public/pods/{tokenId} → the uuid", async () => {
    const restPods = (await rest("/public/pods?limit=100")).pods as Array<{ id: string; tokenId: number; privateSubnetId: string }>;
    expect(restPods.length).toBeGreaterThan(0);
    for (const restPod of restPods) {
      const { pod } = await run(9, { tokenId: String(restPod.tokenId) });
      expect(pod.id).toBe(String(restPod.tokenId));
      const subnet = (await rest(`/public/subnets/${restPod.privateSubnetId}`)).subnet as { id: string; tokenId: number };
      expect(pod.subnetId).toBe(String(subnet.tokenId));
      expect(pod.datanet.id).toBe(String(subnet.tokenId));
      // GraphQL → REST: the token ids name the same records
      expect((await rest(`/public/pods/${pod.id}`)).pod.id).toBe(restPod.id);
      expect((await rest(`/public/subnets/${pod.subnetId}`)).subnet.id).toBe(restPod.privateSubnetId);
      // a pod's whole-CORE volume is its wei volume / 10^18
      const restVolume = (await rest(`/public/pods/${restPod.id}`)).pod.cumulativeUpVotesVolume;
      expect(restVolume).toBe(Number(formatEther(BigInt(pod.cumulativeUpVotes))));
    }
    // the default variables name a pod REST lists too
    const { pod } = await run(9);
    expect(restPods.map((r) => String(r.tokenId))).toContain(pod.id);
  });

  it("10. which block: _meta names the indexed head; the epoch formula gives the contract's current epoch", async () => {
    const { _meta, protocol } = await run(10);
    const head = await p().publicClient.getBlock({ blockTag: "latest" });
    const status = _meta.status.base as { id: number; block: { number: number; timestamp: number } };
    expect(status.id).toBe(8453);
    expect(status.block.number).toBe(Number(head.number));
    expect(protocol.epochLength).toBe((await p().read<bigint>("VeCore", "epochLength")).toString());
    const epoch = (BigInt(status.block.timestamp) - BigInt(protocol.epochGenesis)) / BigInt(protocol.epochLength) + 1n;
    expect(Number(epoch)).toBe(await p().currentEpoch());
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const socket = createServer();
  await new Promise<void>((resolve) => socket.listen(0, "127.0.0.1", resolve));
  const { port } = socket.address() as AddressInfo;
  await new Promise((resolve) => socket.close(resolve));
  return port;
}

describe("the Platform API's GraphQL playground and forwarding route", () => {
  it("serves the playground from this origin only, with a strict Content-Security-Policy and the guide's examples", async () => {
    const response = await fetch(`${platformUrl}/graphql/playground`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    const html = await response.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(6);
    const bodies = new Map<string, string>();
    for (const asset of assets) {
      expect(asset).toMatch(/^\/graphql\/playground\/assets\//);
      const file = await fetch(`${platformUrl}${asset}`);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get("content-type"), asset).toMatch(asset.endsWith(".css") ? /^text\/css/ : /^text\/javascript/);
      expect(file.headers.get("cache-control")).toContain("immutable");
      bodies.set(path.basename(asset), await file.text());
    }
    // every font and image of the stylesheet is inline: nothing is fetched from elsewhere
    expect(bodies.get("graphiql.min.css")).not.toMatch(/url\((?!["']?data:)/);
    const initializer = bodies.get("initializer.js")!;
    expect(initializer).toContain('url: "/graphql"');
    for (const example of EXAMPLES) expect(initializer).toContain(JSON.stringify(example.query).slice(1, -1));
    const index = (await (await fetch(`${platformUrl}/`)).json()) as Record<string, unknown>;
    expect(index.graphqlPlayground).toBe("/graphql/playground");
    const redirect = await fetch(`${platformUrl}/graphql`, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/graphql/playground");
  });

  it("answers a bad request with a flat 4xx and changes nothing; invalid GraphQL is the indexer's own answer", async () => {
    const post = (body: string, contentType = "application/json") =>
      fetch(`${platformUrl}/graphql`, { method: "POST", headers: { "content-type": contentType }, body });
    const cases: Array<[Response, number]> = [
      [await post('{"query":"{ pods { totalCount } }"}', "text/plain"), 415],
      [await post("{not json"), 400],
      [await post('{"variables":{}}'), 400],
      [await post('["{ pods { totalCount } }"]'), 400],
      [await post(JSON.stringify({ query: `{ pods { totalCount } } #${"x".repeat(70_000)}` })), 413],
    ];
    for (const [response, status] of cases) {
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ error: expect.any(String) });
    }
    const invalid = await post(JSON.stringify({ query: "{ pods(id: 1) { nope } }" }));
    expect(invalid.status).toBe(200);
    expect(((await invalid.json()) as GraphqlAnswer).errors).toEqual(expect.arrayContaining([expect.objectContaining({ message: expect.any(String) })]));
  });

  it("answers 503 with the flat error body when the indexer cannot be reached", async () => {
    const config = loadConfig({ LOG_LEVEL: "silent", PONDER_VIEWS_SCHEMA: "chain", DATABASE_URL: database.url, PONDER_URL: `http://127.0.0.1:${await closedPort()}` });
    const app = createPlatformApp({ ...platformDeps, config });
    try {
      const response = await app.request("/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "{ pods { totalCount } }" }),
      });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: "GraphQL endpoint (indexer) unavailable" });
    } finally {
      app.close();
    }
  });
});
