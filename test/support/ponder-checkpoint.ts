/** Ponder's checkpoint string: 10 digits of block timestamp, 16 of chain id, 16 of block number, then the event. */
export const checkpointOf = (timestamp: bigint, block: bigint) =>
  `${timestamp.toString().padStart(10, "0")}${"8453".padStart(16, "0")}${block.toString().padStart(16, "0")}`.padEnd(75, "0");
