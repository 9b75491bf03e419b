import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { accessScope } from "../customers/scope";
import type { AppContext, AppEnv } from "../http/context";
import { apiOperation, successSchema } from "../http/openapi";
import { AlertIdBody, AlertSchema, CreateAlertBody, EvaluationSchema, RunSchema, UpdateAlertBody } from "./schemas";
import * as alerts from "./service";

const tags = ["Alerts"];
const Unsubscribed = z
  .array(z.string())
  .openapi({ description: "Addresses that used an e-mail's unsubscribe link: later runs skip them." });

const create = apiOperation({
  method: "post",
  path: "/api/create_alert/",
  operationId: "createAlert",
  tags,
  summary: "Watch a number on a dashboard for one customer, or every customer of a group tag, each on its own data",
  description:
    "At each slot of `cron` (wall-clock time in `timezone`) the panel is run for each target customer; when the first row's value meets `condition` " +
    "the customer is notified (e-mail of the dashboard report whose first line says why, and/or the webhook). Each slot runs exactly once.",
  access: "write",
  database: "primary",
  body: CreateAlertBody,
  response: successSchema({ alert: AlertSchema }),
});

const list = apiOperation({
  method: "get",
  path: "/api/alerts/",
  operationId: "listAlerts",
  tags,
  summary: "List the alerts of the token's access group, oldest first",
  access: "read",
  database: "session",
  response: successSchema({ alerts: z.array(AlertSchema) }),
});

const get = apiOperation({
  method: "post",
  path: "/api/get_alert/",
  operationId: "getAlert",
  tags,
  summary: "An alert with the last 20 evaluations of each customer and its last 20 runs, newest first",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: AlertIdBody,
  response: successSchema({
    alert: AlertSchema,
    unsubscribed: Unsubscribed,
    evaluations: z.array(EvaluationSchema),
    runs: z.array(RunSchema),
  }),
});

const update = apiOperation({
  method: "post",
  path: "/api/update_alert/",
  operationId: "updateAlert",
  tags,
  summary: "Change an alert (each given field replaces the stored one)",
  description:
    "Giving `provided_id` or `group_tag` replaces the target (the other becomes null). A new cron, time zone or un-pausing counts from now.",
  access: "write",
  database: "primary",
  body: UpdateAlertBody,
  response: successSchema({ alert: AlertSchema }),
});

const remove = apiOperation({
  method: "post",
  path: "/api/delete_alert/",
  operationId: "deleteAlert",
  tags,
  summary: "Delete an alert with its runs and evaluations",
  access: "write",
  database: "primary",
  body: AlertIdBody,
  response: successSchema({}),
});

const run = apiOperation({
  method: "post",
  path: "/api/run_alert/",
  operationId: "runAlert",
  tags,
  summary: "Evaluate an alert now (a separate run with trigger `manual`; it counts as an evaluation for on_change)",
  description:
    "Evaluates every target customer and starts the notifications before answering. Each call counts once against DELIVERY_LIMIT_PER_MINUTE.",
  access: "write",
  database: "primary",
  delivery: true,
  body: AlertIdBody,
  response: successSchema({ run: RunSchema, evaluations: z.array(EvaluationSchema) }),
});

/** Links in the e-mails point at the origin the alert was saved through. */
const linkBase = (c: AppContext) => new URL(c.req.url).origin;

export function registerAlertRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(create, async (c) => {
    const alert = await alerts.createAlert(accessScope(c), c.env, c.req.valid("json"), linkBase(c));
    return c.json({ success: 1 as const, alert }, 200);
  });
  app.openapi(list, async (c) => {
    return c.json({ success: 1 as const, alerts: await alerts.listAlerts(accessScope(c)) }, 200);
  });
  app.openapi(get, async (c) => {
    const result = await alerts.getAlert(accessScope(c), c.req.valid("json").id);
    return c.json({ success: 1 as const, ...result }, 200);
  });
  app.openapi(update, async (c) => {
    const alert = await alerts.updateAlert(accessScope(c), c.env, c.req.valid("json"), linkBase(c));
    return c.json({ success: 1 as const, alert }, 200);
  });
  app.openapi(remove, async (c) => {
    await alerts.deleteAlert(accessScope(c), c.req.valid("json").id);
    return c.json({ success: 1 as const }, 200);
  });
  app.openapi(run, async (c) => {
    const result = await alerts.runAlert(accessScope(c), c.env, c.req.valid("json").id);
    return c.json({ success: 1 as const, ...result }, 200);
  });
}
