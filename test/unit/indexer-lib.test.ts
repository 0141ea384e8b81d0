import { describe, expect, it } from "vitest";
import { splitFee, ownerShare, podShare, voterShare } from "../../src/lib/emissions";
import { FEE_KINDS, SUBNET_PARAMS, feeKindName, subnetParamColumn, subnetParamName } from "../../src/lib/enums";
import { epochAt, epochEnd, epochStart } from "../../src/lib/epochs";
import { claimId, eventId, ownerClaimId, voterClaimId } from "../../src/lib/ids";
import { seedPool } from "../../src/lib/seeds";

const CORE = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const DEMO = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";

describe("enum names", () => {
  it("maps SubnetManager.Param indexes in declaration order", () => {
    expect(SUBNET_PARAMS).toHaveLength(7);
    expect(subnetParamName(0)).toBe("AccessFeeCORE");
    expect(subnetParamName(3n)).toBe("PublishingFeePrimaryToken");
    expect(subnetParamName(6)).toBe("EmissionsPerEpochPrimaryToken");
    expect(() => subnetParamName(7)).toThrow(RangeError);
  });

  it("names the datanet column of each parameter", () => {
    expect(subnetParamColumn("AccessFeeCORE")).toBe("accessFeeCORE");
    expect(subnetParamColumn("EmissionsPerEpochPrimaryToken")).toBe("emissionsPerEpochPrimaryToken");
  });

  it("maps FeeSplit.FeeKind indexes", () => {
    expect(FEE_KINDS).toEqual(["creation", "access", "publishing", "republishing"]);
    expect(feeKindName(0)).toBe("creation");
    expect(feeKindName(3n)).toBe("republishing");
    expect(() => feeKindName(4)).toThrow(RangeError);
  });
});

describe("ids", () => {
  it("builds lower-case log ids and natural claim ids", () => {
    expect(eventId("0xABCD", 3)).toBe("0xabcd-3");
    expect(ownerClaimId(4n, 2n)).toBe("owner-4-2");
    expect(voterClaimId(4n, 2n, "0xAbC")).toBe("voter-4-2-0xabc");
    expect(claimId("owner", 1n, 1n, "0xdef")).toBe("owner-1-1");
    expect(claimId("voter", 1n, 1n, "0xDEF")).toBe("voter-1-1-0xdef");
  });
});

describe("epochs", () => {
  const genesis = 1_000n;
  const length = 100n;
  it("numbers epochs from 1 like VeCore.currentEpoch", () => {
    expect(epochAt(1_000n, genesis, length)).toBe(1n);
    expect(epochAt(1_099n, genesis, length)).toBe(1n);
    expect(epochAt(1_100n, genesis, length)).toBe(2n);
    expect(epochStart(2n, genesis, length)).toBe(1_100n);
    expect(epochEnd(2n, genesis, length)).toBe(1_200n);
    expect(() => epochAt(999n, genesis, length)).toThrow(RangeError);
    expect(() => epochStart(0n, genesis, length)).toThrow(RangeError);
  });
});

describe("fee split and emission math", () => {
  it("splits creation fees 50/25/25 and the others 10/45/45, locked taking the remainder", () => {
    expect(splitFee("creation", 100n)).toEqual({ toPerformancePool: 50n, burnt: 25n, locked: 25n });
    expect(splitFee("access", 1_000n)).toEqual({ toPerformancePool: 100n, burnt: 450n, locked: 450n });
    const odd = splitFee("publishing", 7n);
    expect(odd.burnt + odd.toPerformancePool + odd.locked).toBe(7n);
  });

  it("shares emissions like EmissionMath", () => {
    expect(podShare(1_000n, 30n, 120n)).toBe(250n);
    expect(podShare(1_000n, 30n, 0n)).toBe(0n);
    expect(ownerShare(251n)).toBe(125n);
    expect(voterShare(251n, 1n, 3n)).toBe(42n);
    expect(voterShare(251n, 1n, 0n)).toBe(0n);
  });
});

describe("seedPool", () => {
  const base = { subnetId: 1n, amount: 5n, coreSeedJustBefore: false };
  it("tells the pool by the token when the primary token is not CORE", () => {
    expect(seedPool({ ...base, token: CORE, coreToken: CORE.toLowerCase(), primaryToken: DEMO })).toBe("core");
    expect(seedPool({ ...base, token: DEMO, coreToken: CORE, primaryToken: DEMO.toLowerCase() })).toBe("primary");
  });

  it("uses the call and the previous seed when the primary token is CORE", () => {
    const both = { ...base, token: CORE, coreToken: CORE, primaryToken: CORE };
    expect(seedPool({ ...both, call: { subnetId: 1n, coreAmount: 0n, primaryAmount: 5n } })).toBe("primary");
    expect(seedPool({ ...both, call: { subnetId: 1n, coreAmount: 5n, primaryAmount: 0n } })).toBe("core");
    expect(seedPool({ ...both, call: { subnetId: 1n, coreAmount: 5n, primaryAmount: 6n } })).toBe("core");
    expect(seedPool({ ...both, coreSeedJustBefore: true, call: { subnetId: 1n, coreAmount: 5n, primaryAmount: 6n } })).toBe("primary");
    expect(seedPool(both)).toBe("core");
  });
});
