import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { customers } from "../db/schema";
import { storeShareLink } from "../delivery/links/share";
import type { DeliveryTarget } from "../delivery/target";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { jsonBody } from "../http/json-body";
import { randomHex } from "../lib/crypto";

/**
 * A report's share link made without the report (DEV_ROUTES only, admin token: dev-only.ts;
 * not part of the API), for `npm run bench:edge` and bench:delivery's floor of a saved report: a real link stored as a report job stores
 * it (src/delivery/links/share.ts), without the capture and the e-mail a job would run.
 */
const ShareLinkBody = z.object({
  provided_id: z.string(),
  /** The dashboard the link shows, or `report_id`: the customer's saved report (bench:delivery's floor of a report's PDF). */
  dashboard_embed_id: z.string().optional(),
  report_id: z.string().optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
});

export function registerShareLinkDevRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post("/_dev/share-link", jsonBody, async (c) => {
    const body = ShareLinkBody.parse(JSON.parse(await c.req.text()));
    const [customer] = await c
      .get("db")
      .select({ id: customers.id, tokenHash: customers.tokenHash })
      .from(customers)
      .where(eq(customers.providedId, body.provided_id));
    if (!customer) throw new ApiError("customer_not_found", "The customer does not exist.");
    const token = randomHex(32);
    const target: DeliveryTarget = body.report_id
      ? { kind: "saved_report", reportId: body.report_id }
      : { kind: "dashboard", embedId: body.dashboard_embed_id ?? "" };
    await storeShareLink(c.env, token, { customerId: customer.id, target, variables: body.variables ?? {} }, customer.tokenHash);
    return c.json({ success: 1, path: `/share/${token}` });
  });
}
