/** A wallet's claimable emissions as JSON: amounts as raw integer strings (wei), epochs as numbers. */
import type { Amounts, TokenTotals, WalletClaimable } from "../services/claimable";

const shares = (a: Amounts) => ({ core: a.core.toString(), primary: a.primary.toString() });
const totals = (t: TokenTotals) => ({
  owner: t.owner.toString(),
  voter: t.voter.toString(),
  total: t.total.toString(),
});

export function presentWalletClaimable(result: WalletClaimable) {
  return {
    address: result.address,
    currentEpoch: Number(result.currentEpoch),
    coreToken: result.coreToken,
    entries: result.entries.map((entry) => ({
      podId: entry.podId.toString(),
      epoch: Number(entry.epoch),
      subnetId: entry.subnetId.toString(),
      primaryToken: entry.primaryToken,
      owner: shares(entry.owner),
      voter: shares(entry.voter),
    })),
    totals: {
      core: totals(result.totals.core),
      primary: result.totals.primary.map((t) => ({ token: t.token, ...totals(t) })),
    },
  };
}
