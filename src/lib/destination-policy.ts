/**
 * Where the service may send a request of its own (a webhook's `callback_url`, today the only
 * outgoing URL a caller chooses): https to a public host. Refused are the names that mean
 * this machine or a private network (`localhost`, `*.localhost`, `*.local`, `*.internal`) and
 * IP literals in loopback, private, link-local, unique-local, CGNAT, unspecified (and
 * multicast or reserved) ranges, whatever their notation: the WHATWG URL parser has already
 * turned `0x7f000001`, `2130706433`, `0177.0.0.1` and `127.1` into `127.0.0.1`, and IPv6 into
 * its compressed form, so the address is read from the parsed host. IPv4 addresses carried
 * inside IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`) are judged as the IPv4 address they carry.
 *
 * Only in development are `http://127.0.0.1:<port>` and `http://localhost:<port>` allowed: a
 * receiver on the developer's machine. Names are judged by their spelling only (a Worker
 * cannot resolve DNS before it fetches); the platform's own egress rules stay the backstop.
 */

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

function reservedName(host: string): string | null {
  if (host === "localhost" || host.endsWith(".localhost")) return "this machine";
  for (const suffix of ["local", "internal"]) {
    if (host === suffix || host.endsWith(`.${suffix}`)) return `a name of a private network (.${suffix})`;
  }
  return null;
}

/** The parser writes every IPv4 host as four decimal octets. */
const isIpv4 = (host: string) => /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
const ipv4Octets = (host: string) => host.split(".").map(Number);

/** The refused range an IPv4 address is in, or null for a public address. */
function ipv4Range([a, b]: number[]): string | null {
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b >= 64 && b <= 127) return "CGNAT";
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
  if (zerosBefore(5) && g[5] === 0xffff) return ipv4Range(embeddedIpv4(g[6], g[7])); // ::ffff:a.b.c.d
  if (zerosBefore(6)) return ipv4Range(embeddedIpv4(g[6], g[7])); // ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return ipv4Range(embeddedIpv4(g[6], g[7]));
  if (g[0] === 0x2002) return ipv4Range(embeddedIpv4(g[1], g[2]));
  if ((g[0] & 0xfe00) === 0xfc00) return "unique-local";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "site-local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return null;
}
