import { getAddress, isAddressEqual, isHex, recoverMessageAddress, type Hex, type PublicClient } from "viem";

/**
 * True when `signature` is `address`'s EIP-191 (`personal_sign`) signature of `message`:
 * first by local ECDSA recovery (an EOA, no chain needed), then, when a chain is configured,
 * through viem's public-client verification, which also accepts ERC-1271 (deployed smart
 * wallets) and ERC-6492 (counterfactual ones). Chain errors count as "not verified".
 */
export async function verifyWalletSignature(options: {
  address: string;
  message: string;
  signature: string;
  publicClient?: PublicClient;
}): Promise<boolean> {
  const { message, publicClient } = options;
  if (!isHex(options.signature, { strict: true }) || options.signature.length < 4) return false;
  const signature = options.signature as Hex;
  const address = getAddress(options.address.toLowerCase());
  try {
    if (isAddressEqual(await recoverMessageAddress({ message, signature }), address)) return true;
  } catch {
    // not a 65-byte ECDSA signature: maybe a smart wallet's
  }
  if (!publicClient) return false;
  try {
    return await publicClient.verifyMessage({ address, message, signature });
  } catch {
    return false;
  }
}
