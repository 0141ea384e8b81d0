import { generateKeyPairSync } from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import { getCookie } from "hono/cookie";
import type { Context } from "hono";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  importJWK,
  importSPKI,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  type CryptoKey,
} from "jose";
import { isAddress } from "viem";
import type { OffchainDb } from "../../db/client";
import { DEFAULT_LOCAL_IDP_KEY_FILE, parseEnv, processEnv, type RawEnv } from "../../env";
import { users } from "../../db/offchain";
import { readOrCreateSecretFile } from "../../lib/crypto";
import { unauthorized } from "../errors";
import type { Authenticated } from "./factory";

/** The identity provider's session cookie (spec §5). */
export const IDP_COOKIE = "idp-token";

export { DEFAULT_LOCAL_IDP_KEY_FILE };
const LOCAL_ALG = "ES256";

export type IdpConfig = {
  getKey: JWTVerifyGetKey | CryptoKey | Uint8Array;
  issuer: string;
  audience: string;
  walletClaim: string;
  algorithms: string[];
};

export type PlatformUser = {
  id: string;
  idpSubject: string;
  walletAddress: `0x${string}` | null;
  username: string | null;
  avatarUrl: string | null;
};

/**
 * Verification key for the cookie: a JWKS URL or a public key when configured; otherwise the
 * local identity provider's key pair (created once in the data folder), whose private half
 * `signLocalIdpToken` uses to sign development cookies.
 */
export async function loadIdpConfig(env: RawEnv = processEnv()): Promise<IdpConfig> {
  const e = parseEnv(env);
  const algorithms = e.IDP_ALGORITHMS.split(",").map((a) => a.trim());
  const common = { issuer: e.IDP_ISSUER, audience: e.IDP_AUDIENCE, walletClaim: e.IDP_WALLET_CLAIM, algorithms };
  if (e.IDP_JWKS_URL) return { ...common, getKey: createRemoteJWKSet(new URL(e.IDP_JWKS_URL)) };
  if (e.IDP_PUBLIC_KEY) {
    const key = e.IDP_PUBLIC_KEY.trim();
    if (key.startsWith("{")) {
      const jwk = JSON.parse(key) as JWK;
      return { ...common, getKey: createLocalJWKSet({ keys: [jwk] }) };
    }
    return { ...common, getKey: await importSPKI(key, algorithms[0]!) };
  }
  const { publicJwk } = await localIdpKeyPair(e.IDP_LOCAL_KEY_FILE);
  return { ...common, getKey: createLocalJWKSet({ keys: [publicJwk] }) };
}

/** The local identity provider's key pair (ES256), generated on first use and kept in `file`. */
export async function localIdpKeyPair(file = DEFAULT_LOCAL_IDP_KEY_FILE): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const { value } = readOrCreateSecretFile(file, () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const kid = "local-idp-1";
    const pair = {
      privateJwk: { ...privateKey.export({ format: "jwk" }), kid, alg: LOCAL_ALG },
      publicJwk: { ...publicKey.export({ format: "jwk" }), kid, alg: LOCAL_ALG },
    };
    return JSON.stringify(pair, null, 2);
  });
  return JSON.parse(value) as { privateJwk: JWK; publicJwk: JWK };
}

export type LocalTokenClaims = { sub: string; wallet?: string; username?: string; avatarUrl?: string };

/** Signs a cookie value as the local identity provider would (development and tests). */
export async function signLocalIdpToken(
  claims: LocalTokenClaims,
  { privateJwk, issuer = "local-idp", audience = "datamarket-platform", expiresIn = "24h" }: {
    privateJwk: JWK;
    issuer?: string;
    audience?: string;
    expiresIn?: string | number;
  },
): Promise<string> {
  const key = await importJWK(privateJwk, privateJwk.alg ?? LOCAL_ALG);
  return new SignJWT({
    wallet_address: claims.wallet?.toLowerCase(),
    preferred_username: claims.username,
    picture: claims.avatarUrl,
  })
    .setProtectedHeader({ alg: privateJwk.alg ?? LOCAL_ALG, kid: privateJwk.kid })
    .setSubject(claims.sub)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}

/**
 * The user of a valid `idp-token` cookie: created on first sight and kept in step with the token's
 * wallet, name and picture. Every failure is 401 {"error":"Unauthorized"}.
 */
export async function authenticateUser(c: Context, db: OffchainDb, config: IdpConfig): Promise<Authenticated<PlatformUser>> {
  const token = getCookie(c, IDP_COOKIE);
  if (!token) throw unauthorized();
  let payload: JWTPayload;
  try {
    payload = await verifiedPayload(token, config);
  } catch {
    throw unauthorized();
  }
  if (!payload.sub) throw unauthorized();
  const user = await upsertUser(db, payload, config.walletClaim);
  return { principal: user, identity: { kind: "user", id: user.id } };
}

/** How long a verified token is taken as verified without checking its signature again (never past its `exp`). */
const VERIFIED_TOKEN_TTL_MS = 60_000;
const VERIFIED_TOKENS_MAX = 10_000;
const verifiedTokens = new WeakMap<IdpConfig, Map<string, { payload: JWTPayload; until: number }>>();

/**
 * The payload of a valid token. An ES256 signature check costs ~220 µs of CPU, most of an
 * authenticated read's; the same token string verified less than VERIFIED_TOKEN_TTL_MS ago, and
 * not expired since, is taken as verified (the same bytes carry the same signature). So a key the
 * identity provider withdraws from its JWKS stops admitting a token already seen within that time.
 * Refused tokens are not remembered. At most VERIFIED_TOKENS_MAX tokens, oldest dropped first.
 */
async function verifiedPayload(token: string, config: IdpConfig): Promise<JWTPayload> {
  let verified = verifiedTokens.get(config);
  if (!verified) verifiedTokens.set(config, (verified = new Map()));
  const now = Date.now();
  const known = verified.get(token);
  if (known) {
    if (now < known.until) return known.payload;
    verified.delete(token);
  }
  const { payload } = await jwtVerify(token, config.getKey as JWTVerifyGetKey, {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms,
  });
  const until = Math.min(now + VERIFIED_TOKEN_TTL_MS, payload.exp === undefined ? Number.POSITIVE_INFINITY : payload.exp * 1000);
  if (verified.size >= VERIFIED_TOKENS_MAX) verified.delete(verified.keys().next().value!);
  verified.set(token, { payload, until });
  return payload;
}

async function upsertUser(db: OffchainDb, payload: JWTPayload, walletClaim: string): Promise<PlatformUser> {
  const claimed = payload[walletClaim];
  const wallet = typeof claimed === "string" && isAddress(claimed, { strict: false }) ? claimed.toLowerCase() : null;
  const username = typeof payload.preferred_username === "string" ? payload.preferred_username : null;
  const avatarUrl = typeof payload.picture === "string" ? payload.picture : null;
  const values = { idpSubject: payload.sub!, walletAddress: wallet, username, avatarUrl };
  // Most requests come from a known user whose token says nothing new: no write then.
  const [known] = await db.select().from(users).where(eq(users.idpSubject, values.idpSubject)).limit(1);
  if (known && known.walletAddress === wallet && known.username === username && known.avatarUrl === avatarUrl) {
    return { ...known, walletAddress: known.walletAddress as `0x${string}` | null };
  }
  // The identity provider is the authority on who holds a wallet: the latest token's user gets it.
  const row = await db.transaction(async (tx) => {
    if (wallet) {
      await tx
        .update(users)
        .set({ walletAddress: null })
        .where(and(eq(users.walletAddress, wallet), ne(users.idpSubject, values.idpSubject)));
    }
    const [upserted] = await tx
      .insert(users)
      .values(values)
      .onConflictDoUpdate({ target: users.idpSubject, set: { walletAddress: wallet, username, avatarUrl } })
      .returning();
    return upserted!;
  });
  return { ...row, walletAddress: row.walletAddress as `0x${string}` | null };
}
