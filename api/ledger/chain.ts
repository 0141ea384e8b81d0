/**
 * The chain side of the ledger: a protocol contract's event, named once by its kind, checked with
 * `chain/verify-tx.ts` against the process's chain. Errors stay the chain's own
 * (`TxVerificationError`, `ChainUnavailableError`): `record()` answers them as 400 / 503, the
 * reconciler's re-check reads the first as a changed fact and the second as "ask again later".
 */
import type { Abi, Address, ContractEventName, PublicClient } from "viem";
import { PodManagerAbi, SubnetManagerAbi } from "../../abis";
import { verifyTransaction, type TxExpectation, type VerifiedTx } from "../../chain/verify-tx";

/** The read client and the protocol contracts whose transactions back records (an `ApiChain` is one). */
export type LedgerChain = {
  client: PublicClient;
  protocol: { contracts: Record<"PodManager" | "SubnetManager" | "CoreToken", { address: Address }> };
};

/** What the ledger needs of a surface: its chain and the confirmations a first check asks for. */
export type LedgerChainAccess = { chain(): LedgerChain; config: { txMinConfirmations: number } };

/** The protocol contracts whose transactions back records, with their ABIs. */
const RECORDED_CONTRACTS = { PodManager: PodManagerAbi, SubnetManager: SubnetManagerAbi } as const;
export type RecordedContract = keyof typeof RECORDED_CONTRACTS;
type AbiOf<C extends RecordedContract> = (typeof RECORDED_CONTRACTS)[C];

type Expectation<TAbi extends Abi, E extends ContractEventName<TAbi>> = Omit<
  TxExpectation<TAbi, E>,
  "contract" | "abi" | "eventName" | "minConfirmations"
> & { minConfirmations?: number };

export type ContractEvent<C extends RecordedContract, E extends ContractEventName<AbiOf<C>>> = {
  contract: C;
  event: E;
  /**
   * `verifyTransaction` for this event of the contract at its deployed address, with the
   * context's confirmations unless the kind asks for others.
   */
  verify(context: LedgerChainAccess, expectation: Expectation<AbiOf<C>, E>): Promise<VerifiedTx<AbiOf<C>, E>>;
};

/** The event a record kind's transaction must carry, from the protocol contract that emits it. */
export function contractEvent<C extends RecordedContract, E extends ContractEventName<AbiOf<C>>>(
  contract: C,
  event: E,
): ContractEvent<C, E> {
  return {
    contract,
    event,
    verify(context, { minConfirmations, ...expectation }) {
      const { client, protocol } = context.chain();
      return verifyTransaction(client, {
        ...expectation,
        contract: { address: protocol.contracts[contract].address, name: contract },
        abi: RECORDED_CONTRACTS[contract],
        eventName: event,
        minConfirmations: minConfirmations ?? context.config.txMinConfirmations,
      });
    },
  };
}
