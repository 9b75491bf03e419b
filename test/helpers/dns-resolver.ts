import { Response, type Request } from "miniflare";

/**
 * Stands in for a DNS-over-HTTPS resolver (the outside world: Cloudflare's or Google's JSON
 * API), for the destination policy's resolution (DNS_RESOLVER_URL=https://dns.test/dns-query):
 * miniflare routes the Worker's outbound fetches to https://dns.test here (vitest.config.mts).
 * Names under webhook.test resolve to a public address unless a test set their records
 * (`POST https://dns.test/_records?name=<name>` with `{"A": [...], "AAAA": [...]}`); the few
 * names below are fixed; anything else does not exist (NXDOMAIN). https://dns.test/broken
 * answers 503, a resolver that is down.
 */
const PUBLIC = "93.184.215.14";
const fixed: Record<string, { A?: string[]; AAAA?: string[] }> = {
  "inward.example": { A: ["10.0.0.7"] },
  "loopback6.example": { AAAA: ["::1"] },
  // One private answer among public ones is enough to refuse a name.
  "mixed.example": { A: [PUBLIC, "192.168.0.10"] },
  "mapped.example": { AAAA: ["::ffff:169.254.169.254"] },
};
const set = new Map<string, { A?: string[]; AAAA?: string[] }>();

export async function dnsResolver(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/broken") return new Response("resolver down", { status: 503 });
  const name = (url.searchParams.get("name") ?? "").toLowerCase();
  if (url.pathname === "/_records" && request.method === "POST") {
    set.set(name, (await request.json()) as { A?: string[]; AAAA?: string[] });
    return new Response("ok");
  }
  if (url.pathname !== "/dns-query") return new Response("not found", { status: 404 });
  const type = url.searchParams.get("type") === "AAAA" ? "AAAA" : "A";
  const records = set.get(name) ?? fixed[name] ?? (name === "webhook.test" || name.endsWith(".webhook.test") ? { A: [PUBLIC] } : undefined);
  if (!records) return Response.json({ Status: 3, Question: [{ name, type: type === "A" ? 1 : 28 }] });
  const code = type === "A" ? 1 : 28;
  return Response.json(
    { Status: 0, Answer: (records[type] ?? []).map((data) => ({ name, type: code, TTL: 60, data })) },
    { headers: { "Content-Type": "application/dns-json" } },
  );
}
