/**
 * Operator commands for pod moderation:
 *   npm run moderate -- ban --pod <podId|tokenId> --reason "why"
 *   npm run moderate -- list-unchecked [--json]
 *
 * `ban` sends PodManager.invalidatePod from MODERATOR_PRIVATE_KEY (default on a local chain: the
 * devnet deployer, which holds MODERATOR_ROLE), then marks the pod banned with the reason: it
 * leaves the public lists and earns nothing from the current epoch on. `list-unchecked` lists
 * the pods minted with the slop check skipped.
 *
 * Database: DATABASE_URL, else the project's embedded PostgreSQL (the one `npm start` runs).
 * Chain: PONDER_RPC_URL_8453 and the contract addresses, else the devnet's deployments file.
 */
import { privateKeyToAccount, type Account } from "viem/accounts";
import { createChainClient } from "../chain/client";
import { loadProtocolConfig } from "../chain/protocol-config";
import { createDb } from "../api/db/client";
import { runMigrations } from "../api/db/migrate";
import { loadPlatformConfig } from "../api/platform/config";
import { banPod, listUncheckedPods, ModerationError } from "../api/platform/services/moderation";
import { roleAccount } from "../chain/local-accounts";
import { resolveDatabase, type DatabaseHandle } from "../ops/postgres";
import { exitWithUsage, parseCommandLine } from "../ops/cli";
import { parseOperatorEnv } from "../api/env";

const USAGE = `Usage:
  npm run moderate -- ban --pod <podId|tokenId> --reason "why"
  npm run moderate -- list-unchecked [--json]`;

const { values, positionals } = parseCommandLine({
  usage: USAGE,
  allowPositionals: true,
  options: {
    pod: { type: "string" },
    reason: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

const command = positionals[0];
if (command !== "ban" && command !== "list-unchecked") exitWithUsage(USAGE, `Unknown command: ${command ?? "(none)"}`);
if (command === "ban" && (!values.pod || !values.reason)) exitWithUsage(USAGE, "ban needs --pod and --reason");

const database: DatabaseHandle = await resolveDatabase();
const store = createDb(database.url, { chainSchemaName: parseOperatorEnv().PONDER_VIEWS_SCHEMA, maxConnections: 2 });

let exitCode = 0;
try {
  await runMigrations(database.url);
  if (command === "list-unchecked") {
    const pods = await listUncheckedPods(store.db);
    if (values.json) console.log(JSON.stringify(pods, null, 2));
    else if (pods.length === 0) console.log("No pods minted with the slop check skipped.");
    else {
      for (const pod of pods) {
        const state = pod.banned ? `BANNED (${pod.banReason})` : pod.invalidated ? "invalidated on chain" : "listed";
        console.log(`${pod.id}  token ${pod.tokenId ?? "-"}  ${state}  ${pod.name}  ${pod.url}`);
      }
    }
  } else {
    const protocol = loadProtocolConfig();
    const config = loadPlatformConfig();
    let moderator: Account;
    if (config.moderatorPrivateKey) moderator = privateKeyToAccount(config.moderatorPrivateKey);
    else if (protocol.local) moderator = roleAccount("deployer");
    else throw new ModerationError("Set MODERATOR_PRIVATE_KEY (a key holding PodManager's MODERATOR_ROLE)");
    const result = await banPod(
      { db: store.db, chain: { protocol, client: createChainClient(protocol) }, moderator },
      { pod: values.pod!, reason: values.reason! },
    );
    if (values.json) console.log(JSON.stringify({ ...result, tokenId: result.tokenId?.toString() ?? null }));
    else {
      const chainPart =
        result.onChain === "sent"
          ? `invalidated on chain in ${result.txHash}`
          : result.onChain === "already"
            ? "already invalid on chain"
            : "not minted: nothing to invalidate on chain";
      console.log(`Pod ${result.podId ?? "(no metadata)"} token ${result.tokenId ?? "-"}: ${chainPart}; ${result.podId ? "marked banned" : "no record to mark"}.`);
    }
  }
} catch (error) {
  console.error(error instanceof ModerationError ? error.message : error);
  exitCode = 1;
} finally {
  await store.pool.end().catch(() => undefined);
  await database.stop().catch(() => undefined);
}
process.exit(exitCode);
