/** Stake handlers. */
import type { Hash } from "viem";
import { parseTokenAmount } from "../../../../chain/units";
import { badRequest } from "../../../http/errors";
import { type PlatformHandler, requireWallet } from "../../app-services";
import { findSubnetRef, publishedTokenId, subnetNotFound } from "../../services/refs";
import { recordBoost } from "../../services/stakes";
import type * as routes from "./stakes.routes";

/** The txHash must be a `boost` by the caller's wallet of exactly `amount` on the subnet. */
export const boost: PlatformHandler<typeof routes.boostRoute> = async (c) => {
  const body = c.req.valid("json");
  const user = c.get("user");
  const { db, platform } = c.get("services");
  const wallet = requireWallet(user);
  const amount = parseTokenAmount(body.amount);
  if (amount === undefined || amount === 0n) throw badRequest("amount: must be a positive decimal string");
  const subnet = await findSubnetRef(db, body.subnetId, { userId: user.id });
  if (!subnet) throw subnetNotFound();
  const subnetTokenId = publishedTokenId(subnet);
  const id = await recordBoost(db, platform, {
    txHash: body.txHash as Hash,
    wallet,
    subnetTokenId,
    amount,
    values: { userId: user.id, subnetId: subnet.key, amount: body.amount },
  });
  return c.json({ data: { id } }, 201);
};
