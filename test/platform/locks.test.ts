/** GET /locks/{address}: lock positions from the indexed VeCore state. */
import { getAddress, parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { createPlatformApp } from "../../api/platform/app";
import { roleAccount } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { eventually } from "./agents-harness";
import { badCookies, BASE, json, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const holder = roleAccount("voter1");
const receiver = roleAccount("voter2");
const nobody = roleAccount("voter3");

let session: Session;
const ids: Record<string, bigint> = {};

const path = (address: string) => `${BASE}/locks/${address}`;

async function stake(name: string, account = holder, amount = parseEther("1000"), duration = 365 * DAY) {
  ids[name] = await h().devnet.protocol.read<bigint>("VeCore", "nextLockupId");
  await h().write(account, "VeCore", "stake", [amount, BigInt(duration)]);
}

beforeAll(async () => {
  session = await h().signIn("holder", holder, "Holly");
  for (const account of [holder, receiver]) await h().fund(account);
  await stake("short", holder, parseEther("5"), 7 * DAY); // withdrawn below
  await stake("main", holder, parseEther("1000"));
  await stake("given", holder, parseEther("40"));
  await stake("receivers", receiver, parseEther("12.5"));
  await stake("second", holder, 123_456_789n);
  await h().write(holder, "VeCore", "stakeMore", [ids.main, parseEther("0.000000000000000001")]);
  await h().write(holder, "VeCore", "transferFrom", [holder.address, receiver.address, ids.given]);
  await h().devnet.protocol.increaseTime(8 * DAY);
  await h().write(holder, "VeCore", "withdraw", [ids.short, holder.address]);
  await h().caughtUp();
  await eventually(async () => (await json(await session.get(path(holder.address)))).data.locks.length === 2);
});

describe("GET /locks/{address}", () => {
  it("lists the locks the address holds now, by token id, amounts as raw integer strings", async () => {
    const response = await session.get(path(holder.address));
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      data: {
        locks: [
          { id: String(ids.main), tokenId: String(ids.main), amount: "1000000000000000000001" },
          { id: String(ids.second), tokenId: String(ids.second), amount: "123456789" },
        ],
      },
    });
  });

  it("follows transfers, for any address, in any letter case", async () => {
    const expected = {
      data: {
        locks: [
          { id: String(ids.given), tokenId: String(ids.given), amount: parseEther("40").toString() },
          { id: String(ids.receivers), tokenId: String(ids.receivers), amount: parseEther("12.5").toString() },
        ],
      },
    };
    expect(await json(await session.get(path(receiver.address.toLowerCase())))).toEqual(expected);
    expect(await json(await session.get(path(getAddress(receiver.address))))).toEqual(expected);
  });

  it("answers an empty list for an address without locks", async () => {
    expect(await json(await session.get(path(nobody.address)))).toEqual({ data: { locks: [] } });
  });

  it.each(["0x123", "not-an-address", `0x${"g".repeat(40)}`, `0x${"a".repeat(41)}`, "0x"])("answers 400 for %s", async (bad) => {
    const response = await session.get(path(bad));
    expect(response.status).toBe(400);
    expect(Object.keys(await json(response))).toEqual(["error"]);
  });

  it("answers 401 for every bad cookie", async () => {
    for (const cookie of await badCookies(h(), { sub: "holder", wallet: holder.address })) {
      const response = await h().request(path(holder.address), { cookie });
      expect(response.status).toBe(401);
      expect(await json(response)).toEqual({ error: "Unauthorized" });
    }
  });

  it("answers 503 while the indexer's views are missing", async () => {
    const deps = h().deps;
    const app = createPlatformApp({ ...deps, config: { ...deps.config, ponderViewsSchema: "no_views_here" } });
    const response = await app.request(path(holder.address), { headers: { Cookie: session.cookie } });
    expect(response.status).toBe(503);
    expect(await json(response)).toEqual({ error: "Indexer not ready" });
  });
});
