/**
 * Sign-in with smart-contract wallets: ERC-1271 (a deployed wallet that checks its owner's
 * signature) and ERC-6492 (a wallet not deployed yet, signature wrapped with its factory call).
 */
import { createRequire } from "node:module";
import {
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  keccak256,
  serializeErc6492Signature,
  type Abi,
  type Hex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleAccount } from "../../devnet/accounts";
import { startDevnet, type Devnet } from "../support/chain";
import { postJson, protocolOf, startChatApp, type ChatTestServer } from "./support";

const require = createRequire(import.meta.url);

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

contract OwnerWallet {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

contract WalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address wallet) {
        wallet = address(new OwnerWallet{salt: salt}(owner));
    }
}
`;

function compile(): Record<string, { abi: Abi; bytecode: Hex }> {
  const solc = require("solc");
  const input = {
    language: "Solidity",
    sources: { "Wallets.sol": { content: SOURCE } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === "error");
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const out: Record<string, { abi: Abi; bytecode: Hex }> = {};
  for (const name of ["OwnerWallet", "WalletFactory"]) {
    const contract = output.contracts["Wallets.sol"][name];
    out[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
  return out;
}

let devnet: Devnet;
let server: ChatTestServer;
let artifacts: Record<string, { abi: Abi; bytecode: Hex }>;
const owner = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());

async function deploy(name: string, args: unknown[]): Promise<`0x${string}`> {
  const wallet = devnet.protocol.walletFor(roleAccount("deployer"));
  const hash = await wallet.deployContract({ abi: artifacts[name]!.abi, bytecode: artifacts[name]!.bytecode, args } as never);
  const receipt = await devnet.protocol.publicClient.waitForTransactionReceipt({ hash });
  return receipt.contractAddress!;
}

async function signInAs(walletAddress: string, sign: (message: string) => Promise<Hex>) {
  const nonceResponse = await postJson(server.app, "/auth/nonce", { walletAddress });
  const { nonce, message } = (await nonceResponse.json()) as { nonce: string; message: string };
  return postJson(server.app, "/auth/verify", { walletAddress, nonce, signature: await sign(message) });
}

beforeAll(async () => {
  artifacts = compile();
  devnet = await startDevnet();
  server = await startChatApp({ protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl) });
});

afterAll(async () => {
  await server?.close();
  await devnet?.chain.stop();
});

describe("smart-wallet sign-in", () => {
  it("accepts an ERC-1271 signature from a deployed contract wallet and rejects a stranger's", async () => {
    const walletAddress = await deploy("OwnerWallet", [owner.address]);
    const ok = await signInAs(walletAddress, (message) => owner.signMessage({ message }));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { walletAddress: string }).walletAddress).toBe(walletAddress.toLowerCase());

    const refused = await signInAs(walletAddress, (message) => stranger.signMessage({ message }));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: "Unauthorized" });
  });

  it("accepts an ERC-6492 signature from a wallet that is not deployed yet", async () => {
    const factory = await deploy("WalletFactory", []);
    const salt = keccak256("0x01");
    const initCode = encodeDeployData({ abi: artifacts.OwnerWallet!.abi, bytecode: artifacts.OwnerWallet!.bytecode, args: [owner.address] });
    const walletAddress = getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecode: initCode });
    expect(await devnet.protocol.publicClient.getCode({ address: walletAddress })).toBeUndefined();
    const factoryData = encodeFunctionData({ abi: artifacts.WalletFactory!.abi, functionName: "deploy", args: [owner.address, salt] });

    const wrap = (signature: Hex) => serializeErc6492Signature({ address: factory, data: factoryData, signature });
    const ok = await signInAs(walletAddress, async (message) => wrap(await owner.signMessage({ message })));
    expect(ok.status).toBe(200);
    const refused = await signInAs(walletAddress, async (message) => wrap(await stranger.signMessage({ message })));
    expect(refused.status).toBe(401);
  });
});
