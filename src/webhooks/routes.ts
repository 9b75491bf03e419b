import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { plainText } from "../http/fields";
import { adminOperation, successSchema } from "../http/openapi";
import * as webhooks from "./service";

const createWebhookSecret = adminOperation({
  method: "post",
  path: "/admin/webhook_secrets/",
  operationId: "adminCreateWebhookSecret",
  tags: ["Administration"],
  summary: "Create or replace an access group's webhook secret (shown once)",
  database: "primary",
  description:
    "Delivery webhooks (`callback_url`) of this access group are signed with it: `X-Signature: sha256=<hex>`, the HMAC-SHA256 of `<X-Signature-Timestamp>.<raw body>` (Unix seconds, fresh on every attempt). Calling again replaces the secret; the old one stops signing at once.",
  body: z.object({ access_group: plainText(1, 256) }).openapi("CreateWebhookSecretRequest"),
  response: successSchema({
    webhook_secret: z.object({ access_group: z.string(), created_at: z.string() }).openapi("WebhookSecret"),
    secret: z.string().openapi({ description: "Shown only in this response." }),
  }),
});

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createWebhookSecret, async (c) => {
    const { secret, ...info } = await webhooks.createWebhookSecret(c.get("db"), c.req.valid("json").access_group);
    return c.json({ success: 1 as const, webhook_secret: info, secret }, 200);
  });
}
