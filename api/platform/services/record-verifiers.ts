/**
 * The reorg reconciler's checks (api/reorgs): for each kind of `verified_transactions` row, the
 * same verification the route ran, rebuilt from the stored record, run against the canonical
 * chain when the identical transaction was mined again in another block. The record's facts hold
 * → it is reconfirmed; they changed (another token id, datanet, amount, ...) → it is undone.
 *
 * The confirmations rule of the routes (TX_MIN_CONFIRMATIONS) is not applied again: a re-mined
 * transaction is judged on its facts, and the reconciler keeps checking it until it is final.
 */
import type { Address, Hash } from "viem";
import { ChainUnavailableError, TxVerificationError } from "../../../chain/verify-tx";
import { SUBNET_PARAMS, type SubnetParam } from "../../../src/lib/enums";
import { eventId } from "../../../src/lib/ids";
import type { OffchainDb } from "../../db/client";
import { isTokenIdRef } from "../../db/refs";
import { HttpError } from "../../http/errors";
import type { RecordVerdict, RecordVerifier, RecordVerifiers } from "../../reorgs/reconciler";
import type { PlatformContext } from "../context";
import {
  moveSubscriptionOrderStatement,
  podDraftByMintTx,
  podRepublishByTx,
  reportedBoostByTx,
  subnetDraftByPublishTx,
  subnetParameterUpdateByTx,
  subscriptionOrderByTx,
} from "../repositories/records-by-tx";
import { findReportedVoteByTx, moveReportedVoteStatements } from "../repositories/reported-votes";
import { findSubnetDraft } from "../repositories/subnets";
import { verifyPodMint, verifyPodRepublish } from "./pod-drafts";
import { verifyBoost } from "./stakes";
import { TX_KINDS, verifySubnetParameter, verifySubnetPublish } from "./subnet-drafts";
import { verifyPackagePayment } from "./subscriptions";
import { BOOST_TX_KIND, ORDER_TX_KIND, VOTE_TX_KIND, verifyVoteTransaction } from "./votes";

const holds = (updates?: RecordVerdict & { holds: true }): RecordVerdict => updates ?? { holds: true };
const changed = (reason: string): RecordVerdict => ({ holds: false, reason });

/** A failed check is a changed fact (400-class); an unreachable chain is thrown (the row waits). */
async function judged(check: () => Promise<RecordVerdict>): Promise<RecordVerdict> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof TxVerificationError) return changed(error.message);
    if (error instanceof ChainUnavailableError) throw error;
    if (error instanceof HttpError && error.status < 500) return changed(error.message);
    throw error;
  }
}

/** The token id of the datanet a pod draft names (draft id or token id); undefined when it is not published. */
async function subnetTokenIdOf(db: OffchainDb, ref: string): Promise<bigint | undefined> {
  if (isTokenIdRef(ref)) return BigInt(ref);
  const draft = await findSubnetDraft(db, ref);
  return draft?.tokenId == null ? undefined : BigInt(draft.tokenId);
}

export function createRecordVerifiers(db: OffchainDb, platform: PlatformContext): RecordVerifiers {
  // the routes' checks, without their confirmations rule (see the module comment)
  const context: PlatformContext = { ...platform, config: { ...platform.config, txMinConfirmations: 1 } };

  const podMint: RecordVerifier = ({ txHash, from }) =>
    judged(async () => {
      const found = await podDraftByMintTx(db, txHash);
      const draft = found?.draft;
      if (!draft?.tokenId || !draft.walletAddress) return changed("the pod draft no longer names this mint");
      // after a republish the draft names the pod's current datanet, not the one it was minted into
      const republish = found?.republished;
      const subnetTokenId = republish ? undefined : await subnetTokenIdOf(db, draft.subnetId);
      if (!republish && subnetTokenId === undefined) return changed("the pod's datanet is not published any more");
      const { tokenId } = await verifyPodMint(context, {
        wallet: from,
        owner: draft.walletAddress as Address,
        subnetTokenId,
        txHash,
      });
      return tokenId.toString() === draft.tokenId
        ? holds()
        : changed(`the transaction now mints pod ${tokenId}, not ${draft.tokenId}`);
    });

  const subnetPublish: RecordVerifier = ({ txHash, from }) =>
    judged(async () => {
      const draft = await subnetDraftByPublishTx(db, txHash);
      if (!draft?.tokenId) return changed("the datanet draft no longer names this publish");
      const { tokenId } = await verifySubnetPublish(context, {
        wallet: from,
        primaryToken: draft.nativeTokenAddress,
        txHash,
      });
      return tokenId.toString() === draft.tokenId
        ? holds()
        : changed(`the transaction now publishes datanet ${tokenId}, not ${draft.tokenId}`);
    });

  const subnetParameter: RecordVerifier = ({ txHash, from }) =>
    judged(async () => {
      const row = await subnetParameterUpdateByTx(db, txHash);
      if (!row?.tokenId || !SUBNET_PARAMS.includes(row.param as SubnetParam))
        return changed("the setter record is gone");
      await verifySubnetParameter(context, {
        wallet: from,
        subnetTokenId: BigInt(row.tokenId),
        param: row.param as SubnetParam,
        value: BigInt(row.value),
        txHash,
      });
      return holds();
    });

  const podRepublish: RecordVerifier = ({ txHash, from }) =>
    judged(async () => {
      const row = await podRepublishByTx(db, txHash);
      if (!row?.tokenId) return changed("the republished pod is not minted any more");
      const { subnetTokenId } = await verifyPodRepublish(context, {
        wallet: from,
        podTokenId: BigInt(row.tokenId),
        txHash,
      });
      return subnetTokenId.toString() === row.subnetTokenId
        ? holds()
        : changed(`the transaction now republishes into datanet ${subnetTokenId}, not ${row.subnetTokenId}`);
    });

  const vote: RecordVerifier = ({ txHash }) =>
    judged(async () => {
      const row = await findReportedVoteByTx(db, txHash);
      if (!row) return changed("the reported vote is gone");
      const verified = await verifyVoteTransaction(context, {
        hash: txHash,
        voter: row.voter as Address,
        claim: {
          podTokenId: BigInt(row.podTokenId),
          epoch: BigInt(row.epoch),
          votes: BigInt(row.votes),
          upVote: row.upVote,
        },
      });
      if (verified.subnetTokenId.toString() !== row.subnetTokenId)
        return changed(`the vote now counts for datanet ${verified.subnetTokenId}`);
      if (verified.votingPower.toString() !== row.votingPower) return changed("the vote's voting power changed");
      if (verified.logIndex === row.logIndex) return holds();
      // the same vote at another position in its block: its public id follows the indexer's
      const voteId = eventId(txHash, verified.logIndex);
      return holds({
        holds: true,
        updates: moveReportedVoteStatements(txHash, voteId, verified.logIndex),
      });
    });

  const boost: RecordVerifier = ({ txHash }) =>
    judged(async () => {
      const row = await reportedBoostByTx(db, txHash);
      if (!row) return changed("the reported boost is gone");
      await verifyBoost(context, {
        wallet: row.staker as Address,
        subnetTokenId: BigInt(row.subnetTokenId),
        amount: BigInt(row.amountRaw),
        txHash,
      });
      return holds();
    });

  const order: RecordVerifier = ({ txHash, from }) =>
    judged(async () => {
      const row = await subscriptionOrderByTx(db, txHash);
      if (!row) return changed("the order is gone");
      const { client, protocol } = context.chain();
      const payment = await verifyPackagePayment(client, protocol.contracts, {
        hash: txHash as Hash,
        wallet: from,
        subnetTokenId: BigInt(row.subnetTokenId),
      });
      if (payment.amount.toString() !== row.amount)
        return changed(`the payment is now ${payment.amount}, not ${row.amount}`);
      return holds({
        holds: true,
        updates: [moveSubscriptionOrderStatement(txHash, payment.blockNumber)],
      });
    });

  return {
    [TX_KINDS.podMint]: podMint,
    [TX_KINDS.subnetPublish]: subnetPublish,
    [TX_KINDS.subnetParameter]: subnetParameter,
    [TX_KINDS.podRepublish]: podRepublish,
    [VOTE_TX_KIND]: vote,
    [BOOST_TX_KIND]: boost,
    [ORDER_TX_KIND]: order,
  };
}
