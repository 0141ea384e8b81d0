/**
 * Shared by the indexer tests: start an indexer for a devnet, read indexed tables with plain
 * SQL, and compare every table with what the contracts report.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { Abi, Address } from "viem";
import { writeDeployment, type ContractName, type Deployment } from "../../chain/deployments";
import { ROLES, devnetAccount } from "../../devnet/accounts";
import type { Protocol } from "../../devnet/protocol";
import { startIndexer, type Indexer, type StartIndexerOptions } from "../../ops/indexer";
import { FEE_KINDS, SUBNET_PARAMS } from "../../src/lib/enums";

export const ZERO = "0x0000000000000000000000000000000000000000";
export const BURN = "0x000000000000000000000000000000000000dead";

const testDirs: string[] = [];

/** Removes the temp files of startIndexerFor (kept with INDEXER_TEST_KEEP_LOGS=1). */
export function removeIndexerTestFiles(): void {
  if (process.env.INDEXER_TEST_KEEP_LOGS === "1") return;
  for (const dir of testDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Writes the deployment to a temp file and starts `ponder start` on it. Output goes to a log
 * file next to it (INDEXER_TEST_LOGS=1 prints it instead); a failed start quotes its tail.
 */
export async function startIndexerFor(
  deployment: Deployment,
  options: Omit<StartIndexerOptions, "deploymentsFile"> & { logName?: string },
): Promise<{ indexer: Indexer; deploymentsFile: string; logFile: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "indexer-test-"));
  testDirs.push(dir);
  const deploymentsFile = path.join(dir, "deployments.json");
  writeDeployment(deployment, deploymentsFile);
  const logFile = path.join(dir, `${options.logName ?? options.schema}.log`);
  const verbose = process.env.INDEXER_TEST_LOGS === "1";
  const indexer = await startIndexer({
    ...options,
    deploymentsFile,
    ...(verbose ? { logPrefix: `[${options.schema}] ` } : { logFile }),
  });
  return { indexer, deploymentsFile, logFile };
}

/** The chain's head, uncached (viem caches block numbers for its polling interval). */
export async function headBlock(p: Protocol): Promise<bigint> {
  return p.publicClient.getBlockNumber({ cacheTime: 0 });
}

type Row = Record<string, unknown>;

/** All rows of `schema.table` (snake_case columns; numeric as string, converted by the caller). */
export async function rows(pool: pg.Pool, schema: string, table: string): Promise<Row[]> {
  const result = await pool.query(`SELECT * FROM ${pg.Client.prototype.escapeIdentifier(schema)}.${table}`);
  return result.rows;
}

export async function count(pool: pg.Pool, schema: string, table: string): Promise<number> {
  const result = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${pg.Client.prototype.escapeIdentifier(schema)}.${table}`,
  );
  return Number(result.rows[0]?.n ?? 0);
}

const big = (value: unknown): bigint => (value === null || value === undefined ? 0n : BigInt(value as string));
const lower = (value: unknown): string => String(value).toLowerCase();

/** Every Voted, Staked, ... log of a contract since its deployment. */
async function logs(p: Protocol, name: ContractName, eventName: string, args?: Record<string, unknown>) {
  return p.publicClient.getContractEvents({
    address: p.address(name),
    abi: p.abis[name] as Abi,
    eventName,
    args,
    fromBlock: 0n,
    toBlock: "latest",
  } as never) as Promise<Array<{ args: Record<string, unknown>; transactionHash: string; logIndex: number }>>;
}

/**
 * Compares every indexed table in `schema` with the chain (`p` at its latest block).
 * Returns a list of mismatches (empty when the index agrees with the contracts).
 */
export async function verifyIndexedState(p: Protocol, pool: pg.Pool, schema: string): Promise<string[]> {
  const problems: string[] = [];
  const expect = (what: string, indexed: unknown, chain: unknown) => {
    const a = typeof indexed === "string" ? indexed.toLowerCase() : indexed;
    const b = typeof chain === "string" ? chain.toLowerCase() : chain;
    if (a !== b) problems.push(`${what}: indexed ${String(indexed)} != chain ${String(chain)}`);
  };
  const table = (name: string) => rows(pool, schema, name);
  const currentEpoch = BigInt(await p.currentEpoch());
  const epochs = Array.from({ length: Number(currentEpoch) }, (_, i) => BigInt(i + 1));

  // ---- protocol ----
  const [protocolRow] = await table("protocol");
  if (!protocolRow) problems.push("protocol: no row");
  else {
    expect("protocol.ve_core", protocolRow.ve_core, p.address("VeCore"));
    expect("protocol.subnet_manager", protocolRow.subnet_manager, p.address("SubnetManager"));
    expect("protocol.pod_manager", protocolRow.pod_manager, p.address("PodManager"));
    expect("protocol.core_token", protocolRow.core_token, p.address("CoreToken"));
    expect("protocol.epoch_genesis", big(protocolRow.epoch_genesis), await p.read<bigint>("VeCore", "genesis"));
    expect("protocol.epoch_length", big(protocolRow.epoch_length), await p.read<bigint>("VeCore", "epochLength"));
    expect("protocol.min_stake", big(protocolRow.min_stake_duration), await p.read<bigint>("VeCore", "minStakeDuration"));
    expect("protocol.max_stake", big(protocolRow.max_stake_duration), await p.read<bigint>("VeCore", "maxStakeDuration"));
    expect(
      "protocol.subnet_creation_fee",
      big(protocolRow.subnet_creation_fee),
      await p.read<bigint>("SubnetManager", "subnetCreationFee"),
    );
    expect("protocol.performance_pool", protocolRow.performance_pool, await p.read<string>("SubnetManager", "performancePool"));
    expect(
      "protocol.pod_validity_period",
      big(protocolRow.pod_validity_period),
      await p.read<bigint>("PodManager", "podValidityPeriod"),
    );
  }

  // ---- datanets ----
  const nextSubnetId = await p.read<bigint>("SubnetManager", "nextSubnetId");
  const datanets = new Map((await table("datanet")).map((r) => [big(r.id), r]));
  expect("datanet count", BigInt(datanets.size), nextSubnetId - 1n);
  const published = await logs(p, "SubnetManager", "SubnetPublished");
  for (let id = 1n; id < nextSubnetId; id++) {
    const row = datanets.get(id);
    if (!row) {
      problems.push(`datanet ${id}: missing`);
      continue;
    }
    const s = await p.read<Record<string, bigint | string>>("SubnetManager", "getSubnet", [id]);
    const [corePool, primaryPool] = await p.read<[bigint, bigint]>("SubnetManager", "emissionPool", [id]);
    const [emCore, emPrimary] = await p.read<[bigint, bigint]>("SubnetManager", "emissionsPerEpochAt", [id, currentEpoch]);
    expect(`datanet ${id}.owner`, row.owner, await p.read<string>("SubnetManager", "ownerOf", [id]));
    expect(`datanet ${id}.primary_token`, row.primary_token, s.primaryToken);
    expect(`datanet ${id}.access_fee_core`, big(row.access_fee_core), s.accessFeeCORE);
    expect(`datanet ${id}.access_fee_primary_token`, big(row.access_fee_primary_token), s.accessFeePrimaryToken);
    expect(`datanet ${id}.publishing_fee_core`, big(row.publishing_fee_core), s.publishingFeeCORE);
    expect(`datanet ${id}.publishing_fee_primary_token`, big(row.publishing_fee_primary_token), s.publishingFeePrimaryToken);
    expect(`datanet ${id}.republishing_fee_core`, big(row.republishing_fee_core), s.republishingFeeCORE);
    expect(`datanet ${id}.core_pool`, big(row.core_pool), corePool);
    expect(`datanet ${id}.primary_pool`, big(row.primary_pool), primaryPool);
    expect(`datanet ${id}.emissions_per_epoch_core`, big(row.emissions_per_epoch_core), emCore);
    expect(`datanet ${id}.emissions_per_epoch_primary_token`, big(row.emissions_per_epoch_primary_token), emPrimary);
    const log = published.find((l) => l.args.subnetId === id);
    expect(`datanet ${id}.creation_fee`, big(row.creation_fee), log?.args.creationFee);
    expect(`datanet ${id}.publish_tx_hash`, row.publish_tx_hash, log?.transactionHash);
  }

  // ---- parameter history, seeds, boosts, access ----
  const paramLogs = await logs(p, "SubnetManager", "SubnetParameterUpdated");
  const paramRows = await table("datanet_parameter_update");
  expect("datanet_parameter_update count", paramRows.length, paramLogs.length);
  for (const l of paramLogs) {
    const row = paramRows.find((r) => r.id === `${l.transactionHash.toLowerCase()}-${l.logIndex}`);
    expect(`param update ${l.transactionHash}`, row?.param, SUBNET_PARAMS[Number(l.args.param)]);
    expect(`param update ${l.transactionHash} value`, big(row?.value), l.args.value);
  }
  const seedLogs = await logs(p, "SubnetManager", "EmissionPoolSeeded");
  const seedRows = await table("emission_seed");
  expect("emission_seed count", seedRows.length, seedLogs.length);
  for (let id = 1n; id < nextSubnetId; id++) {
    const row = datanets.get(id);
    const owned = seedRows.filter((r) => big(r.subnet_id) === id);
    const sum = (pool: string) => owned.filter((r) => r.pool === pool).reduce((acc, r) => acc + big(r.amount), 0n);
    expect(`datanet ${id}.seeded_core_by_owner`, big(row?.seeded_core_by_owner), sum("core"));
    expect(`datanet ${id}.seeded_primary_by_owner`, big(row?.seeded_primary_by_owner), sum("primary"));
  }
  expect("boost count", await count(pool, schema, "boost"), (await logs(p, "SubnetManager", "SubnetBoosted")).length);
  const accessLogs = await logs(p, "SubnetManager", "SubnetAccessGranted");
  expect("subnet_access count", await count(pool, schema, "subnet_access"), accessLogs.length);
  const holders = await table("subnet_access_holder");
  const distinctHolders = new Set(accessLogs.map((l) => `${l.args.subnetId}-${lower(l.args.account)}`));
  expect("subnet_access_holder count", holders.length, distinctHolders.size);
  for (const h of holders) {
    const has = await p.read<boolean>("SubnetManager", "hasSubnetAccess", [big(h.subnet_id), h.account]);
    expect(`hasSubnetAccess(${h.subnet_id}, ${h.account})`, has, true);
  }

  // ---- fees ----
  const feeLogs = await logs(p, "SubnetManager", "FeeCollected");
  const feeRows = await table("fee_collection");
  expect("fee_collection count", feeRows.length, feeLogs.length);
  for (const l of feeLogs) {
    const row = feeRows.find((r) => r.id === `${l.transactionHash.toLowerCase()}-${l.logIndex}`);
    expect(`fee ${l.transactionHash}-${l.logIndex} kind`, row?.kind, FEE_KINDS[Number(l.args.kind)]);
  }
  const performancePool = await p.read<Address>("SubnetManager", "performancePool");
  const erc20BalanceOf = [
    { type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "a", type: "address" }], outputs: [{ type: "uint256" }] },
  ] as const;
  const totals = await table("fee_total");
  const tokens = new Set(feeLogs.map((l) => lower(l.args.token)));
  expect("fee_total tokens", totals.length, tokens.size);
  for (const total of totals) {
    const token = total.token as Address;
    const balance = (account: Address) =>
      p.publicClient.readContract({ address: token, abi: erc20BalanceOf, functionName: "balanceOf", args: [account] });
    expect(`fee_total ${token}.locked`, big(total.locked), await p.read<bigint>("SubnetManager", "lockedFees", [token]));
    expect(`fee_total ${token}.burnt`, big(total.burnt), await balance(BURN));
    expect(`fee_total ${token}.to_performance_pool`, big(total.to_performance_pool), await balance(performancePool));
    expect(
      `fee_total ${token}.amount`,
      big(total.amount),
      big(total.burnt) + big(total.to_performance_pool) + big(total.locked),
    );
  }

  // ---- CORE payments to the SubnetManager ----
  const paymentLogs = await logs(p, "CoreToken", "Transfer", { to: p.address("SubnetManager") });
  expect("payment_transfer count", await count(pool, schema, "payment_transfer"), paymentLogs.length);

  // ---- pods ----
  const nextPodId = await p.read<bigint>("PodManager", "nextPodId");
  const pods = new Map((await table("pod")).map((r) => [big(r.id), r]));
  expect("pod count", BigInt(pods.size), nextPodId - 1n);
  for (let id = 1n; id < nextPodId; id++) {
    const row = pods.get(id);
    if (!row) {
      problems.push(`pod ${id}: missing`);
      continue;
    }
    const chainPod = await p.read<{ subnetId: bigint; mintEpoch: bigint; validityEpoch: bigint; invalidFromEpoch: bigint }>(
      "PodManager",
      "getPod",
      [id],
    );
    expect(`pod ${id}.owner`, row.owner, await p.read<string>("PodManager", "ownerOf", [id]));
    expect(`pod ${id}.subnet_id`, big(row.subnet_id), chainPod.subnetId);
    expect(`pod ${id}.mint_epoch`, big(row.mint_epoch), chainPod.mintEpoch);
    expect(`pod ${id}.validity_epoch`, big(row.validity_epoch), chainPod.validityEpoch);
    expect(`pod ${id}.invalid_from_epoch`, big(row.invalid_from_epoch), chainPod.invalidFromEpoch);
  }
  expect("pod_republish count", await count(pool, schema, "pod_republish"), (await logs(p, "PodManager", "PodRepublished")).length);

  // ---- votes and their aggregates ----
  const voteLogs = await logs(p, "PodManager", "Voted");
  const voteRows = await table("vote");
  expect("vote count", voteRows.length, voteLogs.length);
  const indexedVoteIds = new Set(voteRows.map((r) => r.id));
  for (const l of voteLogs) {
    if (!indexedVoteIds.has(`${l.transactionHash.toLowerCase()}-${l.logIndex}`)) problems.push(`vote ${l.transactionHash} missing`);
  }
  const podEpochs = new Map((await table("pod_epoch")).map((r) => [`${r.pod_id}-${r.epoch}`, r]));
  for (let id = 1n; id < nextPodId; id++) {
    for (const epoch of epochs) {
      const row = podEpochs.get(`${id}-${epoch}`);
      const [up, down, subnet, claimed] = await Promise.all([
        p.read<bigint>("PodManager", "podUpVotes", [id, epoch]),
        p.read<bigint>("PodManager", "podDownVotes", [id, epoch]),
        p.read<bigint>("PodManager", "podEpochSubnet", [id, epoch]),
        p.read<boolean>("PodManager", "hasPodOwnerClaimedEmissions", [epoch, id]),
      ]);
      expect(`podUpVotes(${id}, ${epoch})`, big(row?.up_votes), up);
      expect(`podDownVotes(${id}, ${epoch})`, big(row?.down_votes), down);
      expect(`podEpochSubnet(${id}, ${epoch})`, big(row?.subnet_id), subnet);
      expect(`hasPodOwnerClaimedEmissions(${id}, ${epoch})`, row?.owner_claimed ?? false, claimed);
    }
  }
  const datanetEpochs = new Map((await table("datanet_epoch")).map((r) => [`${r.subnet_id}-${r.epoch}`, r]));
  for (let id = 1n; id < nextSubnetId; id++) {
    for (const epoch of epochs) {
      const row = datanetEpochs.get(`${id}-${epoch}`);
      const net = await p.read<bigint>("PodManager", "subnetPositiveNetVotes", [id, epoch]);
      expect(`subnetPositiveNetVotes(${id}, ${epoch})`, big(row?.positive_net_votes), net);
      const cast = voteLogs.filter((l) => l.args.subnetId === id && l.args.epoch === epoch);
      const volume = (upVote: boolean) => cast.filter((l) => l.args.upVote === upVote).reduce((a, l) => a + (l.args.votes as bigint), 0n);
      expect(`datanet_epoch(${id}, ${epoch}).up_votes`, big(row?.up_votes), volume(true));
      expect(`datanet_epoch(${id}, ${epoch}).down_votes`, big(row?.down_votes), volume(false));
    }
  }
  const voters = new Set<string>([
    ...Object.values(ROLES).map((index) => devnetAccount(index).address.toLowerCase()),
    ...voteLogs.map((l) => lower(l.args.voter)),
  ]);
  const voterEpochs = new Map((await table("voter_epoch")).map((r) => [`${r.voter}-${r.epoch}`, r]));
  const voterPodEpochs = new Map((await table("voter_pod_epoch")).map((r) => [`${r.voter}-${r.pod_id}-${r.epoch}`, r]));
  for (const voter of voters) {
    for (const epoch of epochs) {
      const cast = await p.read<bigint>("PodManager", "votesCastedByVoterForEpoch", [voter, epoch]);
      expect(`votesCastedByVoterForEpoch(${voter}, ${epoch})`, big(voterEpochs.get(`${voter}-${epoch}`)?.votes_cast), cast);
      for (let id = 1n; id < nextPodId; id++) {
        const row = voterPodEpochs.get(`${voter}-${id}-${epoch}`);
        const [up, down, claimed] = await Promise.all([
          p.read<bigint>("PodManager", "voterUpVotes", [voter, id, epoch]),
          p.read<bigint>("PodManager", "voterDownVotes", [voter, id, epoch]),
          p.read<boolean>("PodManager", "hasUserClaimedEmissions", [epoch, id, voter]),
        ]);
        expect(`voterUpVotes(${voter}, ${id}, ${epoch})`, big(row?.up_votes), up);
        expect(`voterDownVotes(${voter}, ${id}, ${epoch})`, big(row?.down_votes), down);
        expect(`hasUserClaimedEmissions(${voter}, ${id}, ${epoch})`, row?.claimed ?? false, claimed);
      }
    }
  }
  for (let id = 1n; id < nextPodId; id++) {
    const mine = voteLogs.filter((l) => l.args.podId === id);
    const sum = (upVote: boolean) => mine.filter((l) => l.args.upVote === upVote).reduce((a, l) => a + (l.args.votes as bigint), 0n);
    expect(`pod ${id}.cumulative_up_votes`, big(pods.get(id)?.cumulative_up_votes), sum(true));
    expect(`pod ${id}.cumulative_down_votes`, big(pods.get(id)?.cumulative_down_votes), sum(false));
    expect(`pod ${id}.voter_count`, Number(pods.get(id)?.voter_count ?? 0), new Set(mine.map((l) => lower(l.args.voter))).size);
  }

  // ---- claims ----
  const ownerClaims = await logs(p, "PodManager", "PodOwnerEmissionsClaimed");
  const voterClaims = await logs(p, "PodManager", "VoterEmissionsClaimed");
  const claimRows = await table("claim");
  expect("claim count", claimRows.length, ownerClaims.length + voterClaims.length);
  for (const row of claimRows) {
    const podId = big(row.pod_id);
    const epoch = big(row.epoch);
    const claimed =
      row.kind === "owner"
        ? await p.read<boolean>("PodManager", "hasPodOwnerClaimedEmissions", [epoch, podId])
        : await p.read<boolean>("PodManager", "hasUserClaimedEmissions", [epoch, podId, row.account]);
    expect(`claim ${row.id} flag on chain`, claimed, true);
    const log = [...ownerClaims, ...voterClaims].find(
      (l) => l.transactionHash.toLowerCase() === row.tx_hash && l.logIndex === row.log_index,
    );
    expect(`claim ${row.id}.core_amount`, big(row.core_amount), log?.args.coreAmount);
    expect(`claim ${row.id}.primary_amount`, big(row.primary_amount), log?.args.primaryAmount);
  }

  // ---- locks ----
  const nextLockupId = await p.read<bigint>("VeCore", "nextLockupId");
  const locks = new Map((await table("lock")).map((r) => [big(r.id), r]));
  expect("lock count", BigInt(locks.size), nextLockupId - 1n);
  for (let id = 1n; id < nextLockupId; id++) {
    const row = locks.get(id);
    const [amount, expiresAt, , votingPower] = await p.read<[bigint, bigint, bigint, bigint]>("VeCore", "lockupData", [id]);
    if (row?.withdrawn) {
      expect(`lock ${id} withdrawn: lockupData.amount`, amount, 0n);
      continue;
    }
    expect(`lock ${id}.amount`, big(row?.amount), amount);
    expect(`lock ${id}.expires_at`, big(row?.expires_at), expiresAt);
    expect(`lock ${id}.voting_power`, big(row?.voting_power), votingPower);
    expect(`lock ${id}.owner`, row?.owner, await p.read<string>("VeCore", "ownerOf", [id]));
  }
  for (const row of await table("governance_account")) {
    expect(`isGovernanceAccount(${row.address})`, row.is_governance, await p.read<boolean>("VeCore", "isGovernanceAccount", [row.address]));
  }
  expect(
    "governance_account count",
    await count(pool, schema, "governance_account"),
    new Set((await logs(p, "VeCore", "GovernanceAccountSet")).map((l) => lower(l.args.account))).size,
  );
  return problems;
}

/** Counts of the event-per-row tables and the chain's matching log counts. */
export async function eventCounts(p: Protocol, pool: pg.Pool, schema: string) {
  const pairs: Array<[string, ContractName, string, Record<string, unknown>?]> = [
    ["vote", "PodManager", "Voted"],
    ["pod", "PodManager", "PodMinted"],
    ["pod_republish", "PodManager", "PodRepublished"],
    ["lock", "VeCore", "Staked"],
    ["datanet", "SubnetManager", "SubnetPublished"],
    ["datanet_parameter_update", "SubnetManager", "SubnetParameterUpdated"],
    ["subnet_access", "SubnetManager", "SubnetAccessGranted"],
    ["boost", "SubnetManager", "SubnetBoosted"],
    ["emission_seed", "SubnetManager", "EmissionPoolSeeded"],
    ["fee_collection", "SubnetManager", "FeeCollected"],
    ["payment_transfer", "CoreToken", "Transfer", { to: p.address("SubnetManager") }],
  ];
  const indexed: Record<string, number> = {};
  const chain: Record<string, number> = {};
  for (const [name, contract, event, args] of pairs) {
    indexed[name] = await count(pool, schema, name);
    chain[name] = (await logs(p, contract, event, args)).length;
  }
  const claims = (await logs(p, "PodManager", "PodOwnerEmissionsClaimed")).length + (await logs(p, "PodManager", "VoterEmissionsClaimed")).length;
  indexed.claim = await count(pool, schema, "claim");
  chain.claim = claims;
  return { indexed, chain };
}
