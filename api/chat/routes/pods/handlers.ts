import type { RouteHandler } from "@hono/zod-openapi";
import { getAddress, parseEventLogs, type Hash, type TransactionReceipt } from "viem";
import { PodManagerAbi } from "../../../../abis";
import { toTokenNumber } from "../../../../chain/units";
import { badRequest, HttpError, serviceUnavailable } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import { explorerTxUrl, serverWalletOf, walletOf, type ChatContext } from "../../context";
import { PodManagerWithTokenErrorsAbi } from "../../services/chain";
import { bestDatanetFor, listDatanets, resolveDatanetHint } from "../../services/datanets";
import { generateMetadata } from "../../services/post-metadata";
import { parsePostUrl } from "../../services/post-url";
import { ChainRpcError, ContractRevertError } from "../../services/server-wallet";
import { backfillTokenIds, isPostAlreadyMinted, recordChatPod, walletPods } from "./queries";
import type { listPodsRoute, mintRoute } from "./routes";

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

/**
 * Validate the URL, resolve the datanet hint, fetch the post, run the quality check, write the
 * metadata, then the server wallet sends `mintPodWithCORE(caller, subnetId)` and the pod is
 * recorded off-chain for the Platform API.
 */
export function mintHandler(ctx: ChatContext): RouteHandler<typeof mintRoute, AppEnv> {
  return async (c) => {
    const wallet = walletOf(c);
    const body = c.req.valid("json");
    const url = parsePostUrl(body.tweetUrl);
    if (!url.ok) throw badRequest(`Invalid tweetUrl: ${url.reason}`);
    const { chain, wallet: serverWallet } = serverWalletOf(ctx);

    const datanets = await listDatanets(ctx.db);
    const hinted = body.subnetHint !== undefined ? resolveDatanetHint(body.subnetHint, datanets) : undefined;
    if (!hinted && datanets.length === 0) throw badRequest("No datanet is published yet to mint into");

    const post = await ctx.postFetcher.fetchPost(url.post);
    const skipSlopCheck = body.skipSlopCheck ?? false;
    if (!skipSlopCheck) {
      const isDuplicate = await isPostAlreadyMinted(ctx.db, url.post.statusId);
      const verdict = await ctx.slopChecker.check(post, { isDuplicate });
      if (!verdict.pass) throw badRequest(`Post failed the quality check: ${verdict.reason}`);
    }
    const metadata = await generateMetadata(post, { title: body.title?.trim(), llm: ctx.llm, logger: c.var.logger });
    const datanet = hinted ?? bestDatanetFor(`${metadata.title}\n${metadata.category}\n${post.text}`, datanets).datanet;

    let txHash: Hash;
    try {
      txHash = await serverWallet.send({
        address: chain.addresses.podManager,
        abi: PodManagerWithTokenErrorsAbi,
        functionName: "mintPodWithCORE",
        args: [getAddress(wallet), datanet.id],
      });
    } catch (error) {
      const failure = mintFailure(error, datanet.id);
      c.var.logger.warn({ err: error, subnetId: datanet.id.toString() }, "mint not sent");
      throw failure;
    }

    let podId: bigint | null = null;
    try {
      const receipt = await serverWallet.waitForReceipt(txHash, ctx.config.mintReceiptTimeoutMs);
      if (receipt && receipt.status !== "success") throw new HttpError(502, "The mint transaction reverted");
      if (receipt) podId = mintedPodId(receipt, chain.addresses.podManager);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      c.var.logger.warn({ err: error, txHash }, "mint receipt unavailable; answering with podId null");
    }

    try {
      await recordChatPod(ctx.db, {
        wallet,
        // The Platform API's privateSubnetId: the datanet's draft when it has one, else its token id.
        subnetId: datanet.draftId ?? datanet.id.toString(),
        tokenId: podId?.toString() ?? null,
        mintTxHash: txHash,
        title: metadata.title,
        description: metadata.description,
        url: url.post.canonicalUrl,
        category: metadata.category,
        slopCheckSkipped: skipSlopCheck,
      });
    } catch (error) {
      // The pod exists on-chain and is the caller's either way; GET /pods shows it from the index.
      c.var.logger.error({ err: error, txHash }, "minted pod could not be recorded off-chain");
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
        subnetId: datanet.id.toString(),
      },
      200,
    );
  };
}

/** The wallet's pods as indexed; `totalEmissions` is what owner claims have paid, in whole CORE. */
export function listPodsHandler(ctx: ChatContext): RouteHandler<typeof listPodsRoute, AppEnv> {
  return async (c) => {
    const wallet = walletOf(c);
    const rows = await walletPods(ctx.db, wallet);
    backfillTokenIds(ctx.db, wallet, rows).catch((err: unknown) => c.var.logger.warn({ err }, "token id backfill failed"));
    const pods = rows.map((row) => ({
      podId: Number(row.id),
      mintTxHash: row.mintTxHash,
      createdAt: new Date(Number(row.createdAt) * 1000).toISOString(),
      totalEmissions: toTokenNumber(row.ownerClaimedCore),
      explorerUrl: explorerTxUrl(ctx, row.mintTxHash),
    }));
    return c.json({ pods, count: pods.length }, 200);
  };
}
