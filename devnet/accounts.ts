/** The local chain's accounts; defined in chain/ because the API defaults to them on a local chain. */
export { DEVNET_MNEMONIC, devnetAccount, roleAccount, ROLES, type Role } from "../chain/local-accounts";
