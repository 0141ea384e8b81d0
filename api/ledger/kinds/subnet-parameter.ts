/** A datanet's fee or emission setter: `SubnetParameterUpdated` for its token, parameter and exact raw value. */
import { sql } from "drizzle-orm";
import type { Hash } from "viem";
import { SUBNET_PARAMS, type SubnetParam } from "../../../src/lib/enums";
import { contractEvent, type LedgerChainAccess } from "../chain";
import { changed, holds, recordKind, type Sender } from "../kind";
import { subnetParameterUpdateByTx } from "../records";

const SubnetParameterUpdated = contractEvent("SubnetManager", "SubnetParameterUpdated");

type ParameterClaim = Sender & { subnetTokenId: bigint; param: SubnetParam; value: bigint; /** The body field, for the message. */ field?: string };

async function verify(context: LedgerChainAccess, hash: Hash, { wallet, subnetTokenId, param, value, field = param, receipt }: ParameterClaim) {
  const paramIndex = SUBNET_PARAMS.indexOf(param);
  await SubnetParameterUpdated.verify(context, {
    hash,
    receipt,
    from: wallet,
    matches: (args) => args.subnetId === subnetTokenId && Number(args.param) === paramIndex && args.value === value,
    describe: `datanet ${subnetTokenId}'s ${param} = ${field} (${value} in the token's smallest unit)`,
  });
}

export const subnetParameter = recordKind({
  name: "subnet-parameter",
  on: SubnetParameterUpdated,
  stage: 2,
  verify,
  async recheck(db, context, { txHash, from }) {
    const row = await subnetParameterUpdateByTx(db, txHash);
    if (!row?.tokenId || !SUBNET_PARAMS.includes(row.param as SubnetParam)) return changed("the setter record is gone");
    await verify(context, txHash, {
      wallet: from,
      subnetTokenId: BigInt(row.tokenId),
      param: row.param as SubnetParam,
      value: BigInt(row.value),
    });
    return holds();
  },
  // public fees come from the indexer anyway
  undo: (txHash) => [sql`DELETE FROM offchain.subnet_parameter_updates WHERE tx_hash = ${txHash}`],
});
