/**
 * Answers that name their block (issue 39 item 4): chain-backed answers carry the indexed block
 * (`X-Indexed-Block`, `X-Indexed-Block-Timestamp`); `?minBlock=N` waits briefly for the indexer,
 * answers 409 with the flat error body when it has not reached N, and 400 when N is no block number.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "../../api/http/rate-limit";
import { roleAccount } from "../../devnet/accounts";
import { startSeededStack, type SeededStack } from "../support/seeded-stack";

let stack: SeededStack;

beforeAll(async () => {
  stack = await startSeededStack({
    name: "indexed-block",
    rateLimiter: createMemoryRateLimiter({ points: 10_000, windowSeconds: 60, keyPrefix: "indexed-block" }),
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

const get = (path: string) => fetch(`${stack.platformUrl}/api/v1${path}`);

describe("answers that name their block", () => {
  it("a chain-backed answer carries the indexed block and its timestamp; an off-chain one does not", async () => {
    const head = Number(await stack.devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 }));
    for (const path of ["/public/pods?limit=5", "/public/subnets", "/stats"]) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(Number(response.headers.get("x-indexed-block")), path).toBe(head);
      expect(Number(response.headers.get("x-indexed-block-timestamp")), path).toBeGreaterThan(0);
    }
    const offchain = await fetch(`${stack.platformUrl}/health`);
    expect(offchain.headers.get("x-indexed-block")).toBeNull();
  });

  it("?minBlock waits for a block mined just now: the answer reflects it", async () => {
    const p = stack.devnet.protocol;
    const owner = roleAccount("curatorA");
    const subnet = BigInt(stack.devnet.seed!.seeded.subnets[0]!.tokenId);
    const receipt = await p.write(owner, "PodManager", "mintPodWithCORE", [owner.address, subnet]);
    const response = await get(`/public/subnets?minBlock=${receipt.blockNumber}`);
    expect(response.status).toBe(200);
    expect(Number(response.headers.get("x-indexed-block"))).toBeGreaterThanOrEqual(Number(receipt.blockNumber));
    // and the indexed state holds the pod that block minted
    const { rows } = await stack.store.pool.query<{ n: string }>("SELECT count(*)::text AS n FROM chain.pod WHERE owner = $1", [owner.address.toLowerCase()]);
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
  });

  it("?minBlock beyond the chain: 409 with the flat body naming the indexed block, after a short wait", async () => {
    const head = Number(await stack.devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 }));
    const response = await get(`/public/pods?limit=5&minBlock=${head + 1000}`);
    expect(response.status).toBe(409);
    expect(response.headers.get("retry-after")).toBe("1");
    const body = (await response.json()) as { error: string };
    expect(Object.keys(body)).toEqual(["error"]);
    expect(body.error).toMatch(new RegExp(`behind minBlock ${head + 1000}`));
  });

  it("?minBlock that is no block number: 400, flat body", async () => {
    for (const value of ["abc", "-1", "1.5", "9".repeat(30)]) {
      const response = await get(`/public/pods?minBlock=${value}`);
      expect(response.status, value).toBe(400);
      expect(Object.keys((await response.json()) as object)).toEqual(["error"]);
    }
  });
});

describe("the OpenAPI document declares ?minBlock", () => {
  type Operation = { operationId: string; parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> };
  it("on every chain-backed operation (with its 409), and on no other", async () => {
    const document = (await (await fetch(`${stack.platformUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    const declaring = operations.filter((op) => op.parameters?.some((p) => p.name === "minBlock" && p.in === "query"));
    const ids = declaring.map((op) => op.operationId);
    // the reads of the answers above, and none of the routes that read no chain table
    expect(ids).toEqual(expect.arrayContaining(["listPublicPods", "listPublicSubnets", "publicStats"]));
    expect(ids).not.toContain("registerAgent");
    for (const op of declaring) expect(Object.keys(op.responses), op.operationId).toContain("409");
  });
});

describe("a kept answer names its block too", () => {
  it("the same read twice, and its 304: each carries the block the answer reflects", async () => {
    const head = Number(await stack.devnet.protocol.publicClient.getBlockNumber({ cacheTime: 0 }));
    const first = await get("/public/subnets?limit=3");
    const again = await get("/public/subnets?limit=3");
    expect(again.headers.get("x-cache")).toBe("hit");
    const etag = again.headers.get("etag");
    expect(etag).toBeTruthy();
    const revalidated = await fetch(`${stack.platformUrl}/api/v1/public/subnets?limit=3`, { headers: { "if-none-match": etag! } });
    expect(revalidated.status).toBe(304);
    for (const response of [first, again, revalidated]) expect(Number(response.headers.get("x-indexed-block"))).toBe(head);
  });
});
