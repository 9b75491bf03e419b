import { createServer } from "node:http";

/**
 * A vendor's web app in miniature, on its own origin: a page that loads `embed.js` from the
 * service, and the `token-url` endpoint a vendor writes (it checks its own session cookie,
 * then mints a signed embed token through the API with its secret API token).
 *
 *   GET /                       the host page (sets the session cookie)
 *   GET /token?customer=…&dashboard=…&expires_in=…[&variables=<json>]   {"token": "…"}; 401 without the cookie
 *                               (`variables`: locked by the token; `allowed_origins=<json>`: the origins that may frame it)
 *   GET /token?customer=…&blueprint=<id>[&can_save=false][&user_id=…][&filters=<json>]
 *                               a report builder token, the same way
 *   GET /order?mode=before|after|defer&token_url=…   a page with two <dashboard-embed> elements in its HTML and
 *                               embed.js before them, after them, or deferred (each way the browser upgrades them)
 *   GET /bad-token              {"token": "not-a-token"}
 *   GET <path of assets>        each of `assets` (`{ "/react/": { type, body } }`: a test's own page and its script), as given
 */
export async function startEmbedHost({ apiBase, apiToken, port = 0, assets = {} }) {
  const tokenCalls = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://host");
    const asset = assets[url.pathname];
    if (asset) {
      res.writeHead(200, { "Content-Type": asset.type, "Set-Cookie": "vendor_session=signed-in; Path=/; SameSite=Lax" });
      res.end(asset.body);
      return;
    }
    if (url.pathname === "/") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Set-Cookie": "vendor_session=signed-in; Path=/; SameSite=Lax" });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Vendor app</title>
<style>body{margin:0;font:14px system-ui}main{max-width:1100px;margin:0 auto;padding:16px}</style>
<script src="${apiBase}/embed.js"></script></head><body><main id="app"><h1>Vendor app</h1></main></body></html>`);
      return;
    }
    if (url.pathname === "/order") {
      const mode = url.searchParams.get("mode");
      const tokenUrl = (url.searchParams.get("token_url") ?? "").replaceAll('"', "&quot;");
      const script = `<script src="${apiBase}/embed.js"${mode === "defer" ? " defer" : ""}></script>`;
      const elements = ["one", "two"]
        .map((id) => `<dashboard-embed id="${id}" embed-id="sales-overview" token-url="${tokenUrl}"></dashboard-embed>`)
        .join("");
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Set-Cookie": "vendor_session=signed-in; Path=/; SameSite=Lax" });
      res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Vendor app</title>${mode === "after" ? "" : script}</head>
<body><main id="app">${elements}</main>${mode === "after" ? script : ""}</body></html>`);
      return;
    }
    if (url.pathname === "/token") {
      if (!(req.headers.cookie ?? "").includes("vendor_session=signed-in")) {
        res.writeHead(401, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: "not signed in" }));
        return;
      }
      const body = { provided_id: url.searchParams.get("customer") };
      if (url.searchParams.has("blueprint")) body.blueprint_id = Number(url.searchParams.get("blueprint"));
      else body.dashboard_embed_id = url.searchParams.get("dashboard");
      if (url.searchParams.has("expires_in")) body.expires_in = Number(url.searchParams.get("expires_in"));
      if (url.searchParams.has("can_save")) body.can_save = url.searchParams.get("can_save") === "true";
      if (url.searchParams.has("user_id")) body.user_id = url.searchParams.get("user_id");
      if (url.searchParams.has("filters")) body.filters = JSON.parse(url.searchParams.get("filters"));
      if (url.searchParams.has("locale")) body.locale = url.searchParams.get("locale");
      if (url.searchParams.has("theme")) body.theme = url.searchParams.get("theme");
      if (url.searchParams.has("variables")) body.variables = JSON.parse(url.searchParams.get("variables"));
      if (url.searchParams.has("allowed_origins")) body.allowed_origins = JSON.parse(url.searchParams.get("allowed_origins"));
      const minted = await fetch(`${apiBase}/api/generate_embed_token/`, {
        method: "POST",
        headers: { "Service-Authorization": `Token ${apiToken}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await minted.json();
      tokenCalls.push({ at: Date.now(), token: answer.token, expires_at: answer.expires_at });
      res.writeHead(minted.ok ? 200 : minted.status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
      res.end(JSON.stringify(minted.ok ? { token: answer.token } : answer));
      return;
    }
    if (url.pathname === "/bad-token") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ token: "not-a-token" }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, tokenCalls, stop: () => new Promise((resolve) => server.close(resolve)) };
}
