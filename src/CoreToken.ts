// CoreToken: only Transfers into the SubnetManager (the config filters on `to`).
import { ponder } from "ponder:registry";
import { paymentTransfer } from "ponder:schema";
import { eventId } from "./lib/ids";

ponder.on("CoreToken:Transfer", async ({ event, context }) => {
  const { from, to, value } = event.args;
  await context.db
    .insert(paymentTransfer)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      from,
      to,
      amount: value,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
});
