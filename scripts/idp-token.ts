/**
 * Prints an `idp-token` cookie value signed by the local identity provider, for trying the
 * Platform API's cookie routes on the local setup:
 *   npm run idp:token -- --sub alice --wallet 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
 */
import { parseCommandLine } from "../ops/cli";
import { localIdpKeyPair, signLocalIdpToken } from "../api/http/auth/idp-cookie";
import { DEFAULT_LOCAL_IDP_KEY_FILE, parseEnv } from "../api/env";

const USAGE = `Usage: npm run -s idp:token -- [--sub <id>] [--wallet <0x address>] [--username <name>] [--expires-in <24h>]
  Prints an idp-token cookie value signed by the local identity provider
  (key file: IDP_LOCAL_KEY_FILE, default ${DEFAULT_LOCAL_IDP_KEY_FILE}; issuer and audience:
  IDP_ISSUER and IDP_AUDIENCE, as the API reads them).`;

const { values } = parseCommandLine({
  usage: USAGE,
  options: {
    sub: { type: "string", default: "local-user" },
    wallet: { type: "string" },
    username: { type: "string" },
    "expires-in": { type: "string", default: "24h" },
  },
});

const env = parseEnv();
const { privateJwk } = await localIdpKeyPair(env.IDP_LOCAL_KEY_FILE);
const token = await signLocalIdpToken(
  { sub: values.sub!, wallet: values.wallet, username: values.username ?? values.sub },
  { privateJwk, issuer: env.IDP_ISSUER, audience: env.IDP_AUDIENCE, expiresIn: values["expires-in"] },
);
console.log(token);
