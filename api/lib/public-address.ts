/**
 * Which addresses the server may send requests to on a caller's behalf (SSRF): only public
 * unicast ones. Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast,
 * documentation and reserved ranges are refused, in IPv4 and IPv6, including IPv4 written
 * inside IPv6 (mapped, NAT64). A host name passes only when every address it resolves to does,
 * so a name that answers one public and one private address cannot steer a later connection.
 * A connection is safe only if it goes to an address that was checked: `checkedLookup` is the
 * `lookup` of node:http(s) requests, so the check and the connection use the same answer (a
 * DNS answer that changes between subscribing and delivering, DNS rebinding, is caught).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["2001::", 23],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  const parts = hex ?? sixToFour;
  if (!parts) return undefined;
  const high = parseInt(parts[1]!, 16);
  const low = parseInt(parts[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Whether `address` (an IP literal) is a public unicast address. Not an IP: false. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, "ipv4");
  if (family !== 6) return false;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined && isIP(inner) === 4 && blocked.check(inner, "ipv4")) return false;
  return !blocked.check(bare, "ipv6");
}

export class PrivateAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to a non-public address (${address})`);
  }
}

export interface AddressPolicy {
  /** Private addresses allowed too (a local setup or the tests; never in production mode). */
  allowPrivate: boolean;
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/**
 * The addresses `host` (a name or an IP literal) resolves to, all of them checked: throws
 * PrivateAddressError when one is not public (unless the policy allows it), and the DNS error when
 * the name does not resolve.
 */
export async function resolvePublicAddresses(host: string, policy: AddressPolicy): Promise<LookupAddress[]> {
  const bare = host.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  const addresses = family !== 0 ? [{ address: bare, family }] : await resolveAll(bare);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (!policy.allowPrivate) {
    const bad = addresses.find((entry) => !isPublicAddress(entry.address));
    if (bad) throw new PrivateAddressError(host, bad.address);
  }
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) that connects only to checked addresses (the first of the answer).
 * Node calls it for host names only; an IP literal is checked by the caller before the request.
 */
export function checkedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolvePublicAddresses(hostname, policy).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}
