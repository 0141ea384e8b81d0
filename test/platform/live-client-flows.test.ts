/**
 * The flows of the live platform's public clients, end to end on anvil with the indexer: the
 * command-line client (a user's own key mints, buys access and votes, then its agent credential
 * registers each txHash) and the agent node (registered with `isOrquestra`, votes with the
 * operator's key). Every transaction goes through hand-written ABI fragments with the live
 * signatures, as those clients send them; none comes from a server-made wallet. The agents register
 * with a name and a description only, as the clients do (each gets a new wallet of its own, which
 * the clients do not use), and act for the sender of the first transaction they record (another agent joins that wallet only with its signature, POST
 * /agents/{agentId}/wallet). A transaction of a wallet the agent is not bound to is refused,
 * and the emissions claim check reads `hasPodOwnerClaimedEmissions(epoch, podId)` with the live ABI.
 */
import { parseAbi, parseEther, parseEventLogs, type Account, type Address, type Hash, type Hex, type TransactionReceipt } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { agents } from "../../api/db/offchain";
import { roleAccount } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { agentFromRegistration, listed, mintedPod, publishDatanet, walletProof, type Agent, type Ref } from "./agents-harness";
import { BASE, CORE, json, podDraftBody, usePlatformHarness } from "./harness";

/** What the clients call, in the live signatures (token functions keep the spec's CORE naming). */
const LIVE_POD_MANAGER = parseAbi([
  "function mintPodWithCORE(address to, uint256 subnetId) returns (uint256 podId)",
  "function vote(uint256 podId, uint256 votes, bool upVote)",
  "function claimPodOwnerEmissions(uint256 podId, uint256 epoch)",
  "function hasPodOwnerClaimedEmissions(uint256 epoch, uint256 podId) view returns (bool)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
]);
const LIVE_SUBNET_MANAGER = parseAbi(["function accessSubnetWithCOREFee(uint256 subnetId, address to)"]);
const LIVE_VE = parseAbi([
  "function stake(uint256 amount, uint256 duration) returns (uint256 lockupId)",
  "function currentEpoch() view returns (uint256)",
]);

const DATASET_URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";

/** The CLI sends every optional URL field, empty when unset. */
const EMPTY_URLS = { imageURL: "", thumbnailURL: "", pdfURL: "", videoURL: "" };

const h = usePlatformHarness({ indexer: true });
const curator = roleAccount("curatorA"); // owns the datanet
const publisher = roleAccount("curatorB"); // another publisher, through the cookie routes
const user = roleAccount("voter1"); // the CLI user's own key
const operator = roleAccount("voter2"); // the agent node operator's key
const third = roleAccount("voter3"); // a wallet no agent here is bound to

let research: Ref;
let publisherPod: Ref;
let cli: Agent;
let node: { id: string; apiKey: string };
let userPod: Ref;
let voteEpoch: bigint;

const p = () => h().devnet.protocol;
const contract = (name: "PodManager" | "SubnetManager" | "VeCore") => p().address(name);
const send = (account: Account, address: Address, abi: typeof LIVE_POD_MANAGER | typeof LIVE_SUBNET_MANAGER | typeof LIVE_VE, functionName: string, args: readonly unknown[]) =>
  p().send(account, { address, abi, functionName, args });
const readLive = <T>(address: Address, abi: typeof LIVE_POD_MANAGER | typeof LIVE_VE, functionName: string, args: readonly unknown[] = []) =>
  p().publicClient.readContract({ address, abi, functionName, args } as never) as Promise<T>;

/** A live client mints with its own key and reads the new pod's id from the ERC-721 Transfer. */
async function mintLive(account: Account, subnet: Ref): Promise<{ tokenId: bigint; txHash: Hash }> {
  const receipt = await send(account, contract("PodManager"), LIVE_POD_MANAGER, "mintPodWithCORE", [account.address, subnet.tokenId]);
  const [transfer] = parseEventLogs({
    abi: LIVE_POD_MANAGER,
    eventName: "Transfer",
    logs: receipt.logs.filter((log) => log.address.toLowerCase() === contract("PodManager").toLowerCase()),
  });
  expect(transfer!.args.to.toLowerCase()).toBe(account.address.toLowerCase());
  return { tokenId: transfer!.args.tokenId, txHash: receipt.transactionHash };
}

const buyAccessLive = (account: Account, subnet: Ref) =>
  send(account, contract("SubnetManager"), LIVE_SUBNET_MANAGER, "accessSubnetWithCOREFee", [subnet.tokenId, account.address]);
const lockLive = (account: Account) => send(account, contract("VeCore"), LIVE_VE, "stake", [CORE(1000), BigInt(365 * DAY)]);
const voteLive = (account: Account, pod: Ref, votes: bigint, upVote = true) =>
  send(account, contract("PodManager"), LIVE_POD_MANAGER, "vote", [pod.tokenId, votes, upVote]);
const votedLogIndex = (receipt: TransactionReceipt) => receipt.logs.at(-1)!.logIndex;

const ordersPath = (agentId: string, subnet: Ref) =>
  `${BASE}/agents/${agentId}/subnets/${subnet.id}/datasets/subscriptions/packages/monthly/orders`;
const orderListPath = (agentId: string, subnet: Ref) =>
  `${BASE}/agents/${agentId}/subnets/${subnet.id}/datasets/subscriptions/packages/orders`;
const podVotes = async (pod: Ref, epoch: bigint) =>
  (await json(await h().request(`${BASE}/public/pods/${pod.id}/votes/epochs/${epoch}`))).data.podVotes as Array<{ id: string; voter: string; upVote: boolean }>;

beforeAll(async () => {
  for (const account of [curator, publisher, user, operator, third]) await h().fund(account);
  const owner = await h().signIn("owner", curator, "Olivia");
  research = await publishDatanet(h(), owner, curator, "Research");
  await h().write(curator, "SubnetManager", "setAccessFeeCORE", [research.tokenId, CORE(10)]);
  await h().write(curator, "SubnetManager", "setEmissionsPerEpochCORE", [research.tokenId, CORE(1000)]);
  await h().write(curator, "SubnetManager", "seedEmissionPool", [research.tokenId, CORE(20_000), 0n]);
  publisherPod = await mintedPod(h(), await h().signIn("publisher", publisher, "Paul"), publisher, research);
  await listed(h(), publisherPod);
});

describe("the command-line client: the user's own key acts, the agent credential records", () => {
  it("registers an agent with a name and a description only, as the CLI does; it gets a new wallet of its own and its key", async () => {
    const response = await h().request(`${BASE}/agents/register`, { body: { name: "CLI agent", description: "Mints and votes for its user" } });
    expect(response.status).toBe(200);
    const { data } = await json(response);
    expect(data).toMatchObject({ walletAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/), isOrchestrator: false });
    expect(data.walletAddress).not.toBe(user.address.toLowerCase());
    expect(data.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    cli = agentFromRegistration(h(), data, user);
  });

  it("mints a pod with the user's key; the agent registers the mint and the pod is public with the agent as creator", async () => {
    const { tokenId, txHash } = await mintLive(user, research);
    const response = await cli.request(`${BASE}/agents/${cli.id}/pods`, {
      // the CLI's --dataset-uri: a content address, stored as given and never fetched
      body: { ...podDraftBody(research.id, { podName: "User's own pod", url: DATASET_URI }), ...EMPTY_URLS, txHash },
    });
    expect(response.status).toBe(201);
    userPod = { id: (await json(response)).data.podId, tokenId };
    await listed(h(), userPod);
    const { pod } = (await json(await h().request(`${BASE}/public/pods/${userPod.id}`))).data;
    expect(pod).toMatchObject({ tokenId: Number(tokenId), url: DATASET_URI, creator: { id: cli.id, username: "CLI agent" } });
    // the first recorded transaction bound the agent to its sender, the user's wallet
    const [row] = await h().store.pool.query("SELECT wallet_address FROM offchain.agents WHERE id = $1", [cli.id]).then((r) => r.rows);
    expect(row).toEqual({ wallet_address: user.address.toLowerCase() });
  });

  it("buys access with the user's key; the agent's order is VERIFIED and the dataset downloads", async () => {
    const payment = await buyAccessLive(user, research);
    const response = await cli.request(ordersPath(cli.id, research), { body: { txHash: payment.transactionHash } });
    expect(response.status).toBe(201);
    const { orderId } = (await json(response)).data;
    const orders = await json(await cli.request(orderListPath(cli.id, research)));
    expect(orders.data.orders).toEqual([
      { id: orderId, package: { id: "monthly", subscriptionDays: 30 }, status: "VERIFIED", expiresAt: expect.any(String) },
    ]);
    await h().caughtUp(); // the download rests on the payment as indexed
    const dataset = await cli.request(`${BASE}/agents/${cli.id}/subnets/${research.id}/datasets`);
    expect(dataset.status).toBe(200);
    const pods = (await json(dataset)).data.pods.map((pod: { id: string }) => pod.id);
    expect(pods).toEqual(expect.arrayContaining([userPod.id, publisherPod.id]));
  });

  it("votes with the user's key on another publisher's pod; the agent registers it and it is in the public votes", async () => {
    await lockLive(user);
    voteEpoch = await readLive<bigint>(contract("VeCore"), LIVE_VE, "currentEpoch");
    const receipt = await voteLive(user, publisherPod, CORE(25));
    const response = await cli.request(`${BASE}/agents/${cli.id}/pods/${publisherPod.id}/votes`, { body: { txHash: receipt.transactionHash } });
    expect(response.status).toBe(200);
    const id = `${receipt.transactionHash}-${votedLogIndex(receipt)}`;
    expect(await json(response)).toEqual({ data: { id } });
    await h().caughtUp();
    expect(await podVotes(publisherPod, voteEpoch)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, voter: user.address.toLowerCase(), upVote: true })]),
    );
    // one transaction backs one record
    const again = await cli.request(`${BASE}/agents/${cli.id}/pods/${publisherPod.id}/votes`, { body: { txHash: receipt.transactionHash } });
    expect(again.status).toBe(400);
    expect(await json(again)).toEqual({ error: "Transaction already used" });
  });

  it("refuses (400) a mint, a payment and a vote sent from a third wallet, and records none of them", async () => {
    const notSent = { error: "Transaction was not sent by the caller's wallet" };
    const mint = await mintLive(third, research);
    const pod = await cli.request(`${BASE}/agents/${cli.id}/pods`, { body: { ...podDraftBody(research.id), ...EMPTY_URLS, txHash: mint.txHash } });
    expect(pod.status).toBe(400);
    expect(await json(pod)).toEqual(notSent);

    const payment = await buyAccessLive(third, research);
    const order = await cli.request(ordersPath(cli.id, research), { body: { txHash: payment.transactionHash } });
    expect(order.status).toBe(400);
    expect(await json(order)).toEqual(notSent);
    expect((await json(await cli.request(orderListPath(cli.id, research)))).data.orders).toHaveLength(1);

    await lockLive(third);
    const vote = await voteLive(third, publisherPod, CORE(5));
    const voted = await cli.request(`${BASE}/agents/${cli.id}/pods/${publisherPod.id}/votes`, { body: { txHash: vote.transactionHash } });
    expect(voted.status).toBe(400);
    expect(await json(voted)).toEqual(notSent);
  });

  it("still accepts a mint sent from the agent's own generated wallet, beside the bound user's", async () => {
    const own = privateKeyToAccount((cli.registration as { privateKey: Hex }).privateKey);
    expect(own.address.toLowerCase()).toBe((cli.registration as { walletAddress: string }).walletAddress);
    await p().testClient.setBalance({ address: own.address, value: parseEther("10") });
    await h().fund(own);
    const { tokenId, txHash } = await mintLive(own, research);
    const response = await cli.request(`${BASE}/agents/${cli.id}/pods`, {
      body: { ...podDraftBody(research.id, { podName: "Agent's own pod" }), ...EMPTY_URLS, txHash },
    });
    expect(response.status).toBe(201);
    await listed(h(), { id: (await json(response)).data.podId, tokenId });
    // the bound wallet stays the user's
    const [row] = await h().store.db.select().from(agents).where(eq(agents.id, cli.id));
    expect(row).toMatchObject({ walletAddress: user.address.toLowerCase(), ownWalletAddress: own.address.toLowerCase() });
  });
});

describe("the agent node: registered with isOrquestra, votes with the operator's key", () => {
  it("registers with a new wallet of its own; its first vote binds the operator's wallet; another agent cannot take it", async () => {
    const registered = await h().request(`${BASE}/agents/register`, { body: { name: "Node", description: "Orchestrates", isOrquestra: true } });
    expect(registered.status).toBe(200);
    const data = (await json(registered)).data;
    expect(data).toMatchObject({ isOrchestrator: true, isOrquestra: true, walletAddress: expect.stringMatching(/^0x[0-9a-f]{40}$/) });
    node = data;
    const headers = { Authorization: `Bearer ${node.apiKey}` };
    expect((await h().request(`${BASE}/agents/${node.id}`, { method: "PATCH", headers, body: { isOrquestra: true } })).status).toBe(200);

    await lockLive(operator);
    await buyAccessLive(operator, research);
    const receipt = await voteLive(operator, userPod, CORE(40));
    const path = `${BASE}/agents/${node.id}/pods/${userPod.id}/votes`;
    // the sender is learned from the receipt the verification uses: the RPC is asked for it once
    const client = h().runtime.chain().client;
    const getReceipt = client.getTransactionReceipt;
    let receiptCalls = 0;
    client.getTransactionReceipt = (args) => {
      if (args.hash === receipt.transactionHash) receiptCalls += 1;
      return getReceipt(args);
    };
    const accepted = await h().request(path, { headers, body: { txHash: receipt.transactionHash } }).finally(() => {
      client.getTransactionReceipt = getReceipt;
    });
    expect(accepted.status).toBe(200);
    expect(receiptCalls).toBe(1);
    // adopted with the record, in its transaction
    const [adopted] = await h().store.db.select().from(agents).where(eq(agents.id, node.id));
    expect(adopted).toMatchObject({ walletAddress: operator.address.toLowerCase() });
    const id = `${receipt.transactionHash}-${votedLogIndex(receipt)}`;
    expect(await json(accepted)).toEqual({ data: { id } });
    await h().caughtUp();
    expect(await podVotes(userPod, voteEpoch)).toEqual([expect.objectContaining({ id, voter: operator.address.toLowerCase(), upVote: true })]);

    // the user's agent (bound to the user) cannot record the operator's vote
    const other = await cli.request(`${BASE}/agents/${cli.id}/pods/${userPod.id}/votes`, { body: { txHash: receipt.transactionHash } });
    expect(other.status).toBe(400);

    // a second agent (its own generated wallet, none bound) cannot adopt the operator's wallet by recording its transaction:
    // adding an agent to a bound wallet needs the wallet's signature
    const intruder = (await json(await h().request(`${BASE}/agents/register`, { body: { name: "Intruder", description: "Takes" } }))).data;
    const second = await voteLive(operator, publisherPod, CORE(1));
    const taken = await h().request(`${BASE}/agents/${intruder.id}/pods/${publisherPod.id}/votes`, {
      headers: { Authorization: `Bearer ${intruder.apiKey}` },
      body: { txHash: second.transactionHash },
    });
    expect(taken.status).toBe(400);
    expect(await json(taken)).toEqual({
      error: `The transaction's sender acts for another agent; bind it to this one with its signature: POST /agents/${intruder.id}/wallet`,
    });
    // with the operator's signature the second agent may act for the wallet too, and the vote is accepted
    const proof = await walletProof(h(), operator, intruder.id);
    const bound = await h().request(`${BASE}/agents/${intruder.id}/wallet`, {
      headers: { Authorization: `Bearer ${intruder.apiKey}` },
      body: { walletAddress: proof.walletAddress, nonce: proof.nonce, signature: proof.signature },
    });
    expect(bound.status).toBe(200);
    const recorded = await h().request(`${BASE}/agents/${intruder.id}/pods/${publisherPod.id}/votes`, {
      headers: { Authorization: `Bearer ${intruder.apiKey}` },
      body: { txHash: second.transactionHash },
    });
    expect(recorded.status).toBe(200);
  });
});

describe("emissions: the claim check a live client makes", () => {
  it("reads hasPodOwnerClaimedEmissions(epoch, podId) false before the owner's claim and true after", async () => {
    const claimed = (pod: Ref) => readLive<boolean>(contract("PodManager"), LIVE_POD_MANAGER, "hasPodOwnerClaimedEmissions", [voteEpoch, pod.tokenId]);
    await p().advanceToNextEpoch();
    expect(await claimed(userPod)).toBe(false);
    expect(await claimed(publisherPod)).toBe(false);
    // the user claims their pod's owner share for the epoch of the operator's vote, with their own key
    await send(user, contract("PodManager"), LIVE_POD_MANAGER, "claimPodOwnerEmissions", [userPod.tokenId, voteEpoch]);
    expect(await claimed(userPod)).toBe(true);
    expect(await claimed(publisherPod)).toBe(false);
  });
});

/** The live clients' default token path: the contracts' REPPO-named functions, aliases of the CORE ones. */
const LIVE_REPPO_POD_MANAGER = parseAbi([
  "function mintPodWithREPPO(address to, uint256 subnetId) returns (uint256 podId)",
  "function getSubnetReppoSeedings(uint256 subnetId) view returns (uint256)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
]);
const LIVE_REPPO_SUBNET_MANAGER = parseAbi([
  "function accessSubnetWithREPPOFee(uint256 subnetId, address to)",
  "function getAccessFeeREPPO(uint256 subnetId) view returns (uint256)",
  "function getPublishingFeeREPPO(uint256 subnetId) view returns (uint256)",
  "function getReppoEmissionsPerEpoch(uint256 subnetId) view returns (uint256)",
]);

describe("the live clients' default token names (REPPO) and the spec's (CORE): one protocol for the API", () => {
  it("mints and buys access through either name; the API shows the same pods, access and values", async () => {
    await h().write(curator, "SubnetManager", "setPublishingFeeCORE", [research.tokenId, CORE(3)]);
    const run = async (names: "CORE" | "REPPO") => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      await p().testClient.setBalance({ address: wallet.address, value: parseEther("10") });
      await h().fund(wallet);
      const registered = await h().request(`${BASE}/agents/register`, { body: { name: `${names} client`, description: "Default path" } });
      const agent = agentFromRegistration(h(), (await json(registered)).data, wallet);
      const coreBefore = await p().read<bigint>("CoreToken", "balanceOf", [wallet.address]);
      const mint =
        names === "CORE"
          ? await send(wallet, contract("PodManager"), LIVE_POD_MANAGER, "mintPodWithCORE", [wallet.address, research.tokenId])
          : await p().send(wallet, {
              address: contract("PodManager"),
              abi: LIVE_REPPO_POD_MANAGER,
              functionName: "mintPodWithREPPO",
              args: [wallet.address, research.tokenId],
            });
      const [transfer] = parseEventLogs({
        abi: LIVE_POD_MANAGER,
        eventName: "Transfer",
        logs: mint.logs.filter((log) => log.address.toLowerCase() === contract("PodManager").toLowerCase()),
      });
      const tokenId = transfer!.args.tokenId;
      const recorded = await agent.request(`${BASE}/agents/${agent.id}/pods`, {
        body: { ...podDraftBody(research.id, { podName: `${names} pod` }), ...EMPTY_URLS, txHash: mint.transactionHash },
      });
      expect(recorded.status, names).toBe(201);
      const pod = { id: (await json(recorded)).data.podId as string, tokenId };
      await listed(h(), pod);
      const payment =
        names === "CORE"
          ? await buyAccessLive(wallet, research)
          : await p().send(wallet, {
              address: contract("SubnetManager"),
              abi: LIVE_REPPO_SUBNET_MANAGER,
              functionName: "accessSubnetWithREPPOFee",
              args: [research.tokenId, wallet.address],
            });
      const ordered = await agent.request(ordersPath(agent.id, research), { body: { txHash: payment.transactionHash } });
      expect(ordered.status, names).toBe(201);
      const spent = coreBefore - (await p().read<bigint>("CoreToken", "balanceOf", [wallet.address]));
      await h().caughtUp();
      const publicPod = (await json(await h().request(`${BASE}/public/pods/${pod.id}`))).data.pod;
      const orders = (await json(await agent.request(orderListPath(agent.id, research)))).data.orders;
      const dataset = await agent.request(`${BASE}/agents/${agent.id}/subnets/${research.id}/datasets`);
      return { wallet, agent, pod, publicPod, orders, datasetStatus: dataset.status, spent };
    };
    const core = await run("CORE");
    const reppo = await run("REPPO");

    // the same pod and the same access, whichever name the client called
    const shape = (r: typeof core) => ({
      pod: { ...r.publicPod, id: undefined, tokenId: undefined, name: undefined, createdAt: undefined, updatedAt: undefined, creator: undefined },
      creator: r.publicPod.creator.username.replace(/^(CORE|REPPO) /, ""),
      orders: r.orders.map((o: { id?: string; expiresAt?: string }) => ({ ...o, id: undefined, expiresAt: undefined })),
      datasetStatus: r.datasetStatus,
      spent: r.spent,
    });
    expect(shape(reppo)).toEqual(shape(core));
    expect(reppo.publicPod).toMatchObject({ tokenId: Number(reppo.pod.tokenId), privateSubnetId: research.id, creator: { id: reppo.agent.id } });
    expect(reppo.orders).toEqual([expect.objectContaining({ status: "VERIFIED" })]);
    expect(reppo.datasetStatus).toBe(200);
    expect(reppo.spent).toBe(CORE(3) + CORE(10)); // the publishing fee and the access fee, in CORE
    for (const r of [core, reppo]) {
      expect(await p().read("SubnetManager", "hasSubnetAccess", [research.tokenId, r.wallet.address])).toBe(true);
    }

    // the four views read what the API shows under the spec's CORE names
    const live = <T>(address: Address, abi: typeof LIVE_REPPO_POD_MANAGER | typeof LIVE_REPPO_SUBNET_MANAGER, functionName: string) =>
      p().publicClient.readContract({ address, abi, functionName, args: [research.tokenId] } as never) as Promise<T>;
    const subnet = (await json(await h().request(`${BASE}/public/subnets/${research.id}`))).data.subnet;
    expect(await live<bigint>(contract("SubnetManager"), LIVE_REPPO_SUBNET_MANAGER, "getAccessFeeREPPO")).toBe(CORE(subnet.accessFeeCORE));
    expect(subnet.accessFeeCORE).toBe(10);
    expect(subnet.emissionsPerEpochCORE).toBe(1000);
    expect(await live<bigint>(contract("SubnetManager"), LIVE_REPPO_SUBNET_MANAGER, "getReppoEmissionsPerEpoch")).toBe(CORE(subnet.emissionsPerEpochCORE));
    expect(await live<bigint>(contract("SubnetManager"), LIVE_REPPO_SUBNET_MANAGER, "getPublishingFeeREPPO")).toBe(
      await p().read<bigint>("SubnetManager", "publishingFeeCORE", [research.tokenId]),
    );
    const [corePool] = await p().read<readonly [bigint, bigint]>("SubnetManager", "emissionPool", [research.tokenId]);
    expect(await live<bigint>(contract("PodManager"), LIVE_REPPO_POD_MANAGER, "getSubnetReppoSeedings")).toBe(corePool);
    expect(corePool).toBeGreaterThan(0n);
  });
});
