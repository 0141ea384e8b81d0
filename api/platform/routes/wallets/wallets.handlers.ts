/** Wallet handlers. */
import type { PlatformHandler } from "../../app-services";
import { presentWalletClaimable } from "../../presenters/claimable";
import { walletClaimable } from "../../services/claimable";
import type * as routes from "./wallets.routes";

export const getWalletClaimable: PlatformHandler<typeof routes.getWalletClaimableRoute> = async (c) => {
  const { db, viewsSchema } = c.get("services");
  const result = await walletClaimable(db, viewsSchema, c.req.valid("param").address);
  return c.json({ data: presentWalletClaimable(result) }, 200);
};
