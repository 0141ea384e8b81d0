import { describe, expect, it } from "vitest";
import { classifyMode } from "../../api/chat/services/assistant/classifier";
import { checkSubnetProposal as checkDatanetProposal, extractSubnetProposal as extractDatanetProposal } from "../../api/chat/services/assistant/subnet-draft";

describe("mode classifier", () => {
  it.each([
    ["How long is an epoch?", "rag"],
    ["What is a datanet?", "rag"],
    ["How do votes and voting power work?", "rag"],
    ["What does access to a datanet cost?", "rag"],
    ["hello", "rag"],
    ["What can I claim?", "emissions"],
    ["How much have my pods earned in emissions?", "emissions"],
    ["Are there unclaimed rewards for pod 3? I want to claim them", "emissions"],
    ["Can you mint this for me https://x.com/alice/status/1790000000000000000", "minting"],
    ["Is https://twitter.com/bob/status/123 a valid post URL?", "minting"],
    ["How do I mint a pod from a tweet?", "minting"],
    ["Is this minting link ok: https://x.com/bob", "minting"],
    ["I want to create a datanet about climate data", "subnet-creation"],
    ["Help me launch a new subnet for medical imaging", "subnet-creation"],
    ["subnetName: Climate\nsubnetDescription: Climate observations", "subnet-creation"],
    ["How do I claim emissions for the pod I minted?", "emissions"],
  ])("%j -> %s", (message, mode) => {
    expect(classifyMode(message)).toBe(mode);
  });
});

describe("datanet proposal check", () => {
  it("extracts field: value lines with aliases and checks every bound", () => {
    const message = [
      "I want to create a datanet:",
      "name: Climate Observations",
      "description: Daily temperature and rainfall readings from volunteer stations.",
      "onboarding publishers: Upload CSV readings with station id and timestamp.",
      "onboarding voters: Up-vote readings that match nearby stations.",
      "goal: The largest open weather-station dataset",
      "symbol: CLIMATE",
      "decimals: 19",
      "token address: 0x1234",
      "creator type: team",
    ].join("\n");
    const checks = checkDatanetProposal(extractDatanetProposal(message));
    const byKey = Object.fromEntries(checks.map((c) => [c.key, c]));
    expect(byKey.subnetName).toMatchObject({ ok: true, value: "Climate Observations" });
    expect(byKey.subnetDescription!.ok).toBe(true);
    expect(byKey.onboardingPublishers!.ok).toBe(true);
    expect(byKey.onboardingVoters!.ok).toBe(true);
    expect(byKey.subnetGoal!.ok).toBe(true);
    expect(byKey.subnetCreatorType!.ok).toBe(true);
    expect(byKey.nativeTokenSymbol).toMatchObject({ ok: false, problem: expect.stringMatching(/over the maximum of 5/) });
    expect(byKey.nativeTokenDecimals).toMatchObject({ ok: false, problem: expect.stringMatching(/1 to 18/) });
    expect(byKey.nativeTokenAddress).toMatchObject({ ok: false });
  });

  it("reads a JSON proposal and reports missing fields", () => {
    const checks = checkDatanetProposal(
      extractDatanetProposal('create this subnet: {"subnetName": "X", "subnetDescription": "too short", "nativeTokenDecimals": 18}'),
    );
    const byKey = Object.fromEntries(checks.map((c) => [c.key, c]));
    expect(byKey.subnetName!.ok).toBe(true);
    expect(byKey.subnetDescription).toMatchObject({ ok: false, problem: expect.stringMatching(/under the minimum of 10/) });
    expect(byKey.nativeTokenDecimals!.ok).toBe(true);
    expect(byKey.subnetGoal).toMatchObject({ ok: false, problem: "is missing" });
  });

  it("takes the name from 'called ...'", () => {
    expect(extractDatanetProposal('Create a datanet called "Ocean Data"').subnetName).toBe("Ocean Data");
  });

  it("checks the upper bounds of §8 exactly", () => {
    const at = (n: number) => "x".repeat(n);
    const ok = checkDatanetProposal({
      subnetName: at(100),
      subnetDescription: at(500),
      onboardingPublishers: at(1000),
      onboardingVoters: at(10),
      subnetGoal: at(100),
      nativeTokenSymbol: at(5),
      nativeTokenDecimals: "1",
      nativeTokenAddress: `0x${"a".repeat(40)}`,
      subnetCreatorType: "individual",
    });
    expect(ok.every((c) => c.ok)).toBe(true);
    const over = checkDatanetProposal({
      subnetName: at(101),
      subnetDescription: at(501),
      onboardingPublishers: at(1001),
      onboardingVoters: at(9),
      subnetGoal: at(101),
      nativeTokenSymbol: at(6),
      nativeTokenDecimals: "0",
      nativeTokenAddress: `0x${"a".repeat(39)}`,
      subnetCreatorType: "company",
    });
    expect(over.filter((c) => c.ok)).toEqual([]);
  });
});
