/**
 * Where the service may send a request of its own (a webhook's `callback_url`, today the only
 * outgoing URL a caller chooses): https to a public host. Refused are the names that mean
 * this machine or a private network (`localhost`, `*.localhost`, `*.local`, `*.internal`),
 * the wildcard-DNS services whose names spell an address (`127.0.0.1.nip.io`, `localtest.me`)
 * and IP literals in loopback, private, link-local, unique-local, CGNAT, unspecified,
 * benchmarking, documentation, IETF, multicast or reserved ranges (docs/delivery.md),
 * whatever their notation: the WHATWG URL parser has already
 * turned `0x7f000001`, `2130706433`, `0177.0.0.1` and `127.1` into `127.0.0.1`, and IPv6 into
 * its compressed form, so the address is read from the parsed host. IPv4 addresses carried
 * inside IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) are judged as the IPv4 address they carry.
 *
 * Only in development are `http://127.0.0.1:<port>` and `http://localhost:<port>` allowed: a
 * receiver on the developer's machine. A Worker's fetch resolves names where the caller cannot
 * see it, so `destinationProblem` judges a name by its spelling; with a DNS-over-HTTPS resolver
 * configured, `resolvedDestinationProblem` also refuses a name any of whose addresses is
 * refused. The platform's own egress rules stay the backstop.
 */

import { lookUpAddresses } from "./dns-over-https";

/**
 * The development exception, on the URL as written: `http://127.0.0.1[:port]` or
 * `http://localhost[:port]` exactly — not another spelling of the same address (`0x7f000001`,
 * `127.1`, `[::1]`), which the parser would also turn into 127.0.0.1.
 */
const LOCAL_RECEIVER = /^http:\/\/(?:127\.0\.0\.1|localhost)(?::\d{1,5})?(?:[/?#]|$)/i;

export interface DestinationRules {
  /** ENVIRONMENT=development: the local receiver exception. */
  development: boolean;
}

/** Why the service must not send to `target`, or null when it may. */
export function destinationProblem(target: string, rules: DestinationRules): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "it is not a URL";
  }
  if (rules.development && LOCAL_RECEIVER.test(target)) return null;
  const host = url.hostname.replace(/\.+$/, "").toLowerCase();
  if (url.protocol !== "https:") return "it must use https (plain http only to localhost or 127.0.0.1 in development)";
  if (url.username !== "" || url.password !== "") return "it must not carry a user name or password";
  const name = reservedName(host);
  if (name) return `its host '${host}' is ${name}, not a public host`;
  const range = host.startsWith("[") ? ipv6Range(host.slice(1, -1)) : isIpv4(host) ? ipv4Range(ipv4Octets(host)) : null;
  if (range) return `its host ${host} is a ${range} address, not a public one`;
  return null;
}

/** Services that answer any name under them with the address it spells (`10.0.0.1.nip.io`) or with loopback. */
const WILDCARD_DNS = ["nip.io", "sslip.io", "xip.io", "localtest.me", "lvh.me"];

const isUnder = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

function reservedName(host: string): string | null {
  if (isUnder(host, "localhost")) return "this machine";
  for (const suffix of ["local", "internal"]) {
    if (isUnder(host, suffix)) return `a name of a private network (.${suffix})`;
  }
  const wildcard = WILDCARD_DNS.find((domain) => isUnder(host, domain));
  if (wildcard) return `a name of ${wildcard}, a wildcard-DNS service that points anywhere (loopback and private addresses too)`;
  return null;
}

/** The parser writes every IPv4 host as four decimal octets. */
const isIpv4 = (host: string) => /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
const ipv4Octets = (host: string) => host.split(".").map(Number);

/** The refused range an IPv4 address is in, or null for a public address. */
function ipv4Range([a, b, c]: number[]): string | null {
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b >= 64 && b <= 127) return "CGNAT";
  if (a === 198 && (b === 18 || b === 19)) return "benchmarking (198.18.0.0/15)";
  if (a === 192 && b === 0 && c === 0) return "IETF protocol assignment (192.0.0.0/24)";
  if ((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) {
    return "documentation (TEST-NET)";
  }
  // 240.0.0.0/4 with the broadcast address 255.255.255.255 in it.
  if (a >= 224) return a < 240 ? "multicast" : "reserved";
  return null;
}

/** An IPv6 address (without brackets, as the parser wrote it) as eight 16-bit groups. */
function ipv6Groups(address: string): number[] | null {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const part = (text: string) => (text === "" ? [] : text.split(":").map((g) => Number.parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const missing = 8 - left.length - right.length;
  if (
    missing < 0 ||
    (tail === undefined && missing !== 0) ||
    [...left, ...right].some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)
  ) {
    return null;
  }
  return [...left, ...new Array(missing).fill(0), ...right];
}

const embeddedIpv4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff];

/** The refused range an IPv6 address is in (or the IPv4 address it carries), or null for a public one. */
function ipv6Range(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return "malformed";
  const zerosBefore = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zerosBefore(8)) return "unspecified";
  if (zerosBefore(7) && g[7] === 1) return "loopback";
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT): refused whatever it carries, as no public receiver has one.
  if (zerosBefore(4) && g[4] === 0xffff && g[5] === 0) return "IPv4-translated (::ffff:0:0:0/96)";
  if (zerosBefore(5) && g[5] === 0xffff) return ipv4Range(embeddedIpv4(g[6], g[7])); // ::ffff:a.b.c.d
  if (zerosBefore(6)) return ipv4Range(embeddedIpv4(g[6], g[7])); // ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4Range(embeddedIpv4(g[6], g[7]));
  // Local-use NAT64 (64:ff9b:1::/48) translates into the operator's own network.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "local-use NAT64 (64:ff9b:1::/48)";
  if (g[0] === 0x2002) return ipv4Range(embeddedIpv4(g[1], g[2]));
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "discard-only (100::/64)";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "documentation (2001:db8::/32)";
  if ((g[0] & 0xfe00) === 0xfc00) return "unique-local";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "site-local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return null;
}

/**
 * Why an address a name resolved to is refused, or null for a public one: IPv4 dotted or IPv6
 * in any textual form (written through the URL parser, which compresses it as above).
 */
export function addressProblem(address: string): string | null {
  let host: string;
  try {
    host = new URL(`https://${address.includes(":") ? `[${address}]` : address}/`).hostname;
  } catch {
    return "not an address";
  }
  if (!host.startsWith("[") && !isIpv4(host)) return "not an address";
  const range = host.startsWith("[") ? ipv6Range(host.slice(1, -1)) : ipv4Range(ipv4Octets(host));
  return range ? `${address} is a ${range} address` : null;
}

export interface ResolvingRules extends DestinationRules {
  /** A DNS-over-HTTPS resolver's JSON endpoint (DNS_RESOLVER_URL); absent = names judged by their spelling only. */
  resolverUrl?: string;
}

/**
 * `destinationProblem`, and then — when a resolver is configured and the host is a name — its
 * A and AAAA addresses: refused when any of them is refused (one private answer among public
 * ones is enough: the fetch may pick it), when the name has none, or when the resolver could
 * not answer (fail closed). Checked when a URL is saved and again before every send, so a name
 * that resolves inward later is not called either.
 */
export async function resolvedDestinationProblem(target: string, rules: ResolvingRules): Promise<string | null> {
  const problem = destinationProblem(target, rules);
  if (problem || !rules.resolverUrl) return problem;
  if (rules.development && LOCAL_RECEIVER.test(target)) return null;
  const host = new URL(target).hostname.replace(/\.+$/, "").toLowerCase();
  if (host.startsWith("[") || isIpv4(host)) return null;
  const answer = await lookUpAddresses(rules.resolverUrl, host);
  if (answer.kind === "failed") return `its host '${host}' could not be resolved (${answer.reason})`;
  if (answer.addresses.length === 0) return `its host '${host}' has no address`;
  for (const address of answer.addresses) {
    const refused = addressProblem(address);
    if (refused) return `its host '${host}' resolves to ${refused}, not a public one`;
  }
  return null;
}
