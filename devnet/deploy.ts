import type { Deployment } from "../chain/deployments";
import { deployProtocolContracts, type DeployOptions } from "../chain/deploy";
import { roleAccount } from "./accounts";

export { DAY, DEFAULT_DEPLOY_OPTIONS, type DeployOptions } from "../chain/deploy";

/** Deploys the protocol on the local chain, the deployer role as admin and moderator; returns addresses and start blocks. */
export function deployProtocol(rpcUrl: string, options: DeployOptions = {}): Promise<Deployment> {
  return deployProtocolContracts({
    rpcUrl,
    deployer: roleAccount("deployer"),
    performancePool: roleAccount("performancePool").address,
    governanceAccounts: [roleAccount("treasury").address],
    options,
  });
}
