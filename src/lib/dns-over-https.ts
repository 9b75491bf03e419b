/**
 * A name's addresses from a DNS-over-HTTPS resolver's JSON API (`application/dns-json`, as
 * Cloudflare's `https://cloudflare-dns.com/dns-query` and Google's `https://dns.google/resolve`
 * answer it): a Worker has no resolver of its own to ask before it fetches, so the destination
 * policy asks this one (DNS_RESOLVER_URL) when it is configured.
 */

const TIMEOUT_MS = 3_000;
/** DNS record types: A, AAAA (a CNAME's chain is followed by the resolver and answered with them). */
const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
/** DNS response codes that mean "no such name" rather than a failure to answer. */
const NXDOMAIN = 3;

export type LookUp = { kind: "found"; addresses: string[] } | { kind: "failed"; reason: string };

interface DnsJson {
  Status?: number;
  Answer?: { type?: number; data?: string }[];
}

/** Every A and AAAA address of `name` (none when it does not exist); `failed` when the resolver gave no answer. */
export async function lookUpAddresses(resolverUrl: string, name: string): Promise<LookUp> {
  const answers = await Promise.all(Object.entries(RECORD_TYPES).map(([type, code]) => lookUp(resolverUrl, name, type, code)));
  const failed = answers.find((answer) => answer.kind === "failed");
  if (failed) return failed;
  return { kind: "found", addresses: answers.flatMap((answer) => (answer.kind === "found" ? answer.addresses : [])) };
}

async function lookUp(resolverUrl: string, name: string, type: string, code: number): Promise<LookUp> {
  const url = new URL(resolverUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  let body: DnsJson;
  try {
    const response = await fetch(url, { headers: { Accept: "application/dns-json" }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: "failed", reason: `the resolver answered HTTP ${response.status}` };
    }
    body = await response.json();
  } catch (error) {
    return {
      kind: "failed",
      reason: error instanceof Error && error.name === "TimeoutError" ? "the resolver timed out" : "the resolver is unreachable",
    };
  }
  if (body.Status === NXDOMAIN) return { kind: "found", addresses: [] };
  if (body.Status !== 0) return { kind: "failed", reason: `the resolver answered DNS status ${body.Status}` };
  const addresses = (body.Answer ?? [])
    .filter((record) => record.type === code && typeof record.data === "string")
    .map((r) => r.data as string);
  return { kind: "found", addresses };
}
