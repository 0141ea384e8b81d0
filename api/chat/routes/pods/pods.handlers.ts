import type { Logger } from "pino";
import { getAddress, parseEventLogs, type Address, type Hash, type TransactionReceipt } from "viem";
import { PodManagerAbi } from "../../../../abis";
import { toTokenNumber } from "../../../../chain/units";
import { badRequest, HttpError, serviceUnavailable } from "../../../http/errors";
import { recordServerMint } from "../../../platform/services/pod-drafts";
import { explorerTxUrl, ledgerChainAccessOf, serverWalletOf, type ChatHandler } from "../../app-services";
import { PodManagerWithTokenErrorsAbi, type ChatChain } from "../../services/chain";
import { bestSubnetFor, listSubnets, resolveSubnetHint } from "../../services/subnets";
import { generateMetadata } from "../../services/post-metadata";
import { parsePostUrl } from "../../services/post-url";
import { ChainRpcError, ContractRevertError, type ServerWallet } from "../../services/server-wallet";
import { backfillTokenIds, isPostAlreadyMinted, walletPods } from "../../repositories/pods";
import type * as routes from "./pods.routes";

const FEE_PAYMENT_ERRORS = new Set([
  "ERC20InsufficientBalance",
  "ERC20InsufficientAllowance",
  "SafeERC20FailedOperation",
]);

/** The minted token id from the receipt's PodMinted event, or null. */
export function mintedPodId(receipt: TransactionReceipt, podManager: string): bigint | null {
  const events = parseEventLogs({
    abi: PodManagerAbi,
    eventName: "PodMinted",
    logs: receipt.logs.filter((log) => log.address.toLowerCase() === podManager.toLowerCase()),
  });
  return events[0]?.args.podId ?? null;
}

function mintFailure(error: unknown, subnetId: bigint): HttpError {
  if (error instanceof ContractRevertError) {
    if (error.errorName === "UnknownSubnet") return badRequest(`Unknown datanet: ${subnetId}`);
    if (error.errorName && FEE_PAYMENT_ERRORS.has(error.errorName)) {
      return serviceUnavailable("The server wallet cannot pay the publishing fee");
    }
    return serviceUnavailable(`The mint was rejected by the chain (${error.errorName ?? "reverted"})`);
  }
  if (error instanceof ChainRpcError) return serviceUnavailable("Chain RPC unavailable");
  if (error instanceof HttpError) return error;
  return serviceUnavailable("Chain RPC unavailable");
}

/** The server wallet sends `mintPodWithCORE(wallet, subnetId)`; a failure to send is an HttpError. */
async function sendMint(chain: ChatChain, serverWallet: ServerWallet, wallet: string, subnetId: bigint, logger: Logger): Promise<Hash> {
  try {
    return await serverWallet.send({
      address: chain.addresses.podManager,
      abi: PodManagerWithTokenErrorsAbi,
      functionName: "mintPodWithCORE",
      args: [getAddress(wallet), subnetId],
    });
  } catch (error) {
    const failure = mintFailure(error, subnetId);
    logger.warn({ err: error, subnetId: subnetId.toString() }, "mint not sent");
    throw failure;
  }
}

/** The mint's receipt once it arrives; null when it does not in time (502 when the mint reverted). */
async function awaitMintReceipt(
  serverWallet: ServerWallet,
  txHash: Hash,
  timeoutMs: number,
  logger: Logger,
): Promise<TransactionReceipt | null> {
  try {
    const receipt = await serverWallet.waitForReceipt(txHash, timeoutMs);
    if (receipt && receipt.status !== "success") throw new HttpError(502, "The mint transaction reverted");
    return receipt;
  } catch (error) {
    if (error instanceof HttpError) throw error;
    logger.warn({ err: error, txHash }, "mint receipt unavailable; answering with podId null");
    return null;
  }
}

/**
 * Validate the URL, resolve the datanet hint, fetch the post, run the quality check, write the
 * metadata, then the server wallet sends `mintPodWithCORE(caller, subnetId)` and the pod is
 * recorded off-chain for the Platform API.
 */
export const mintPod: ChatHandler<typeof routes.mintRoute> = async (c) => {
  const ctx = c.get("services");
  const wallet = c.get("wallet");
  const body = c.req.valid("json");
  const url = parsePostUrl(body.tweetUrl);
  if (!url.ok) throw badRequest(`Invalid tweetUrl: ${url.reason}`);
  const { chain, wallet: serverWallet } = serverWalletOf(ctx);

  const subnets = await listSubnets(ctx.db);
  const hinted = body.subnetHint !== undefined ? resolveSubnetHint(body.subnetHint, subnets) : undefined;
  if (!hinted && subnets.length === 0) throw badRequest("No datanet is published yet to mint into");

  const post = await ctx.postFetcher.fetchPost(url.post);
  const skipSlopCheck = body.skipSlopCheck ?? false;
  if (!skipSlopCheck) {
    const isDuplicate = await isPostAlreadyMinted(ctx.db, url.post.statusId);
    const verdict = await ctx.slopChecker.check(post, { isDuplicate });
    if (!verdict.pass) throw badRequest(`Post failed the quality check: ${verdict.reason}`);
  }
  const metadata = await generateMetadata(post, { title: body.title?.trim(), llm: ctx.llm, logger: c.get("logger") });
  const subnet = hinted ?? bestSubnetFor(`${metadata.title}\n${metadata.category}\n${post.text}`, subnets).subnet;

  const txHash = await sendMint(chain, serverWallet, wallet, subnet.id, c.get("logger"));
  const receipt = await awaitMintReceipt(serverWallet, txHash, ctx.config.mintReceiptTimeoutMs, c.get("logger"));
  const podId = receipt ? mintedPodId(receipt, chain.addresses.podManager) : null;

  try {
    await recordServerMint(ctx.db, ledgerChainAccessOf(chain), {
      serverWallet: serverWallet.address,
      wallet: wallet as Address,
      // The Platform API's privateSubnetId: the datanet's draft when it has one, else its token id.
      subnet: { ref: subnet.draftId ?? subnet.id.toString(), tokenId: subnet.id },
      txHash,
      receipt,
      body: {
        podName: metadata.title,
        url: url.post.canonicalUrl,
        platform: "x",
        category: metadata.category,
        podDescription: metadata.description,
      },
      slopCheckSkipped: skipSlopCheck,
    });
  } catch (error) {
    // The pod exists on-chain and is the caller's either way; GET /pods shows it from the index.
    c.get("logger").error({ err: error, txHash }, "minted pod could not be recorded off-chain");
  }

  return c.json(
    {
      success: true,
      txHash,
      podId: podId?.toString() ?? null,
      title: metadata.title,
      description: metadata.description,
      explorerUrl: explorerTxUrl(ctx, txHash),
      category: metadata.category,
      subnetId: subnet.id.toString(),
    },
    200,
  );
};

/** The wallet's pods as indexed; `totalEmissions` is what owner claims have paid, in whole CORE. */
export const listPods: ChatHandler<typeof routes.listPodsRoute> = async (c) => {
  const ctx = c.get("services");
  const wallet = c.get("wallet");
  const rows = await walletPods(ctx.db, wallet);
  backfillTokenIds(ctx.db, wallet, rows).catch((err: unknown) => c.get("logger").warn({ err }, "token id backfill failed"));
  const pods = rows.map((row) => ({
    podId: Number(row.id),
    subnetId: row.subnetId.toString(),
    mintTxHash: row.mintTxHash,
    createdAt: new Date(Number(row.createdAt) * 1000).toISOString(),
    totalEmissions: toTokenNumber(row.ownerClaimedCore),
    explorerUrl: explorerTxUrl(ctx, row.mintTxHash),
  }));
  return c.json({ pods, count: pods.length }, 200);
};
