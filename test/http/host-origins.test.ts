import FRAME_SCRIPT from "#browser/frame.js";
import CLICKS_SCRIPT from "#browser/clicks.js";
import BUILDER_SCRIPT from "#browser/report-builder.js";
import { describe, expect, it } from "vitest";
import { call, callWithEnv } from "../helpers/api";
import { createCustomer, dashboard, kpi, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// docs/embedding.md: framed pages post only to their host. Each page served with a
// frame-ancestors directive carries the same list as <meta name="host-origins"> (what its scripts
// post to, src/http/browser/host-origins.ts); no built script posts to "*".

async function setup() {
  await seedOrders();
  const { write } = await workspace();
  const { schema, demo } = await sources();
  const customer = unique("framed");
  await createCustomer(write, { provided_id: customer, mapping: { [schema]: demo } });
  const embedId = await dashboard({ panels: [kpi("n", schema, "SELECT count(*) AS value FROM orders")] });
  const mint = async (extra: Record<string, unknown> = {}) => {
    const res = await call("POST", "/api/generate_embed_token/", {
      token: write,
      body: { provided_id: customer, dashboard_embed_id: embedId, ...extra },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return new URL(res.body.embed_url).pathname + new URL(res.body.embed_url).search;
  };
  return { mint };
}

const hostOrigins = (html: string) => /<meta name="host-origins" content="([^"]*)">/.exec(html)?.[1]?.replaceAll("&#39;", "'");
const frameAncestors = (csp: string | null) => /frame-ancestors ([^;]*)/.exec(csp ?? "")?.[1]?.trim();

describe("framed pages know their host from the frame-ancestors they are served with", () => {
  it("the token's allowed_origins, else FRAME_ANCESTORS as a list, else '*' (left to the browser's framing origin)", async () => {
    const { mint } = await setup();
    const allowed = await call("GET", await mint({ allowed_origins: ["https://app.example.com", "https://admin.example.com"] }));
    expect(allowed.status).toBe(200);
    expect(hostOrigins(allowed.body)).toBe("https://app.example.com https://admin.example.com");
    expect(hostOrigins(allowed.body)).toBe(frameAncestors(allowed.headers.get("Content-Security-Policy")));
    const path = await mint();
    const listed = await callWithEnv({ FRAME_ANCESTORS: "https://vendor.example.com 'self'" }, "GET", path);
    expect(hostOrigins(listed.body)).toBe("https://vendor.example.com 'self'");
    const open = await call("GET", path);
    expect(hostOrigins(open.body)).toBe("*");
    // An error page too (it posts its status), with the deployment's list.
    const refused = await callWithEnv({ FRAME_ANCESTORS: "https://vendor.example.com" }, "GET", `${path.split("?")[0]}?token=not-a-token`);
    expect(refused.status).toBe(401);
    expect(hostOrigins(refused.body)).toBe("https://vendor.example.com");
  });

  it("no built script posts a message to '*'", () => {
    for (const script of [FRAME_SCRIPT, CLICKS_SCRIPT, BUILDER_SCRIPT]) {
      expect(script).toContain("postMessage(");
      expect(script).not.toMatch(/postMessage\([^)]*,\s*["']\*["']\)/);
    }
  });
});
