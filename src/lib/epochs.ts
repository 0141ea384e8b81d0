/** VeCore's epoch clock: epoch e covers [genesis + (e-1)*length, genesis + e*length). Pure module. */

export function epochAt(timestamp: bigint, genesis: bigint, epochLength: bigint): bigint {
  if (epochLength <= 0n) throw new RangeError("epochLength must be positive");
  if (timestamp < genesis) throw new RangeError("timestamp before genesis");
  return (timestamp - genesis) / epochLength + 1n;
}

export function epochStart(epoch: bigint, genesis: bigint, epochLength: bigint): bigint {
  if (epoch < 1n) throw new RangeError("epochs start at 1");
  return genesis + (epoch - 1n) * epochLength;
}

/** First second after `epoch`; the epoch is closed once block.timestamp >= epochEnd. */
export function epochEnd(epoch: bigint, genesis: bigint, epochLength: bigint): bigint {
  if (epoch < 1n) throw new RangeError("epochs start at 1");
  return genesis + epoch * epochLength;
}
