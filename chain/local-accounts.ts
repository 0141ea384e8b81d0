import { mnemonicToAccount, type HDAccount } from "viem/accounts";

/** anvil's well-known development mnemonic: its accounts are funded with ETH at genesis. */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";

/** Who does what on a local chain (indexes into the mnemonic). */
export const ROLES = {
  deployer: 0, // protocol admin and moderator
  serverWallet: 1, // the chat server's wallet: mints pods and sends claims for users
  curatorA: 2, // subnet owners
  curatorB: 3,
  voter1: 4,
  voter2: 5,
  voter3: 6,
  buyer: 7, // buys access and a subscription package
  treasury: 8, // governance account: its locks count as governanceLocked
  performancePool: 9, // receives the performance-pool part of every fee
} as const;

export type Role = keyof typeof ROLES;

export function devnetAccount(index: number): HDAccount {
  return mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: index });
}

export function roleAccount(role: Role): HDAccount {
  return devnetAccount(ROLES[role]);
}

/** The private key of a role on a local chain: the default of a key the configuration leaves unset there. */
export function localRoleKey(role: Role): `0x${string}` {
  const key = roleAccount(role).getHdKey().privateKey;
  if (!key) throw new Error(`local ${role} account has no private key`);
  return `0x${Buffer.from(key).toString("hex")}`;
}

/** The local chain's role accounts as `{ label, address }`, in role order. */
export function localAccountAddresses(): { label: Role; address: `0x${string}` }[] {
  return (Object.keys(ROLES) as Role[]).map((label) => ({ label, address: roleAccount(label).address }));
}
