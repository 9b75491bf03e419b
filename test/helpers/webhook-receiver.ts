import { fetch as fetchOutside, Response, type Request } from "miniflare";

/**
 * Stands in for a vendor's webhook receiver (the outside world, not our infrastructure):
 * miniflare routes the Worker's outbound fetches here (`outboundService` in
 * vitest.config.mts). Requests to https://webhook.test/<name> (or a name under webhook.test,
 * for tests that give it DNS records of its own) are recorded and answered
 * 200, or 500 for the first <n> when the path is /fail-<n>/<name>;
 * GET https://webhook.test/_received/<name> lists what <name> received. Every other host
 * is fetched for real (with miniflare's fetch, which takes miniflare's Request as it is: the
 * tests' ClickHouse server is reached so).
 */
const received = new Map<string, { headers: Record<string, string>; body: string; at: number }[]>();

export async function webhookReceiver(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname !== "webhook.test" && !url.hostname.endsWith(".webhook.test")) return fetchOutside(request);
  const listing = url.pathname.match(/^\/_received\/(.+)$/);
  if (listing) return Response.json(received.get(listing[1]) ?? []);
  const target = url.pathname.match(/^\/(?:fail-(\d+)\/)?(.+)$/);
  if (!target) return new Response("not found", { status: 404 });
  const name = target[2];
  const calls = received.get(name) ?? [];
  calls.push({ headers: Object.fromEntries(request.headers), body: await request.text(), at: Date.now() });
  received.set(name, calls);
  return new Response(calls.length <= Number(target[1] ?? 0) ? "receiver down" : "ok", {
    status: calls.length <= Number(target[1] ?? 0) ? 500 : 200,
  });
}
