/** How a row is named in a path or a body: its uuid, or (for chain records) its on-chain token id. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A uint256 in decimal without leading zeros: at most 78 digits (2^256 - 1 has 78). */
export const TOKEN_ID = /^(0|[1-9]\d{0,77})$/;

export const isUuid = (value: string): boolean => UUID.test(value);
export const isTokenIdRef = (value: string): boolean => TOKEN_ID.test(value);
