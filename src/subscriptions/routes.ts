import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../http/context";
import { jsonBody } from "../http/json-body";
import { declaredRoute, ErrorSchema, successSchema } from "../http/openapi";
import { EmbedIdParams, SubscriptionBody, SubscriptionIdParams, SubscriptionSchema } from "./schemas";
import * as subscriptions from "./service";

const tags = ["Embedding"];
const viewers = new WeakMap<Request, subscriptions.Subscriber>();

/** Authentication (401) and permission (403) come before the body is looked at, as on every route. */
const subscriberAccess: MiddlewareHandler<AppEnv> = async (c, next) => {
  viewers.set(c.req.raw, await subscriptions.subscriber(c.get("db"), c.env, c.req.param("embedId") ?? "", c.req.header("Authorization")));
  await next();
};
const viewer = (c: AppContext): subscriptions.Subscriber => {
  const found = viewers.get(c.req.raw);
  if (!found) throw new Error("subscriberAccess must run before a subscription handler");
  return found;
};

const errors = {
  400: {
    description: "`validation_error` (a body naming a recipient, a bad hour or time zone), `invalid_json`.",
    content: { "application/json": { schema: ErrorSchema } },
  },
  401: {
    description: "`invalid_embed_token`: no valid signed token for this dashboard.",
    content: { "application/json": { schema: ErrorSchema } },
  },
  403: {
    description: "`subscriptions_not_allowed`: the token was minted without `user_email`.",
    content: { "application/json": { schema: ErrorSchema } },
  },
  404: {
    description: "`schedule_not_found` (not one of this viewer's subscriptions), `dashboard_not_found`.",
    content: { "application/json": { schema: ErrorSchema } },
  },
};

const create = declaredRoute({
  access: "embed token",
  method: "post",
  path: "/embed/{embedId}/subscriptions",
  operationId: "subscribe",
  tags,
  summary: "Subscribe the token's viewer (user_email) to this dashboard by e-mail",
  description:
    "Creates a schedule (`source: \"embed\"`) for the token's customer with the token's `user_email` as its one recipient. Never another address.",
  middleware: [subscriberAccess, jsonBody] as const,
  request: { params: EmbedIdParams, body: { required: true, content: { "application/json": { schema: SubscriptionBody } } } },
  responses: {
    200: { description: "Success", content: { "application/json": { schema: successSchema({ subscription: SubscriptionSchema }) } } },
    ...errors,
    422: {
      description: "`subscription_limit_reached`: this address already holds 20 subscriptions to this dashboard.",
      content: { "application/json": { schema: ErrorSchema } },
    },
  },
});

const list = declaredRoute({
  access: "embed token",
  method: "get",
  path: "/embed/{embedId}/subscriptions",
  operationId: "listSubscriptions",
  tags,
  summary: "The viewer's own subscriptions to this dashboard, oldest first",
  middleware: [subscriberAccess] as const,
  request: { params: EmbedIdParams },
  responses: {
    200: {
      description: "Success",
      content: { "application/json": { schema: successSchema({ subscriptions: z.array(SubscriptionSchema) }) } },
    },
    ...errors,
  },
});

const cancel = declaredRoute({
  access: "embed token",
  method: "delete",
  path: "/embed/{embedId}/subscriptions/{id}",
  operationId: "cancelSubscription",
  tags,
  summary: "Cancel one of the viewer's own subscriptions",
  middleware: [subscriberAccess] as const,
  request: { params: SubscriptionIdParams },
  responses: { 200: { description: "Success", content: { "application/json": { schema: successSchema({}) } } }, ...errors },
});

/** E-mail links point at the origin the viewer subscribed through. */
const linkBase = (c: AppContext) => new URL(c.req.url).origin;

export function registerSubscriptionRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(create, async (c) => {
    const { frequency, hour, timezone } = c.req.valid("json");
    const subscription = await subscriptions.subscribe(c.get("db"), viewer(c), { frequency, hour, timezone }, linkBase(c));
    return c.json({ success: 1 as const, subscription }, 200);
  });
  app.openapi(list, async (c) => {
    return c.json({ success: 1 as const, subscriptions: await subscriptions.subscriptions(c.get("db"), viewer(c)) }, 200);
  });
  app.openapi(cancel, async (c) => {
    await subscriptions.unsubscribeOwn(c.get("db"), viewer(c), c.req.valid("param").id);
    return c.json({ success: 1 as const }, 200);
  });
}
