import type { LocalServer } from "../../scripts/lib/local-server.mjs";

/**
 * The demo dashboard (sales-overview) as `customer` sees it on the local server of an e2e test
 * (the tests of `npm run demo:*`): the answer's status and headers, the page, and a KPI
 * panel's text by panel id.
 */
export async function demoPage(server: LocalServer, customer: string) {
  const headers = { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" };
  const viewer = await fetch(`${server.base}/api/get_customer/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ provided_id: customer }),
  }).then((r) => r.json() as Promise<any>);
  const response = await fetch(`${server.base}/embed/sales-overview?customer_token=${viewer.customer.token}`);
  const html = await response.text();
  const kpi = (id: string) =>
    html
      .split(`data-panel-id="${id}">`)[1]
      .split("</section>")[0]
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  return { status: response.status, headers: response.headers, html, kpi };
}
