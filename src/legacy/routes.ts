import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { apiOperation, successSchema } from "../http/openapi";
import { customerScope } from "../customers/scope";
import { CreateEndUserBody, EndUserSchema, UpdateEndUserBody, UpdatedUserGroupSchema, UserGroupBody, UserGroupSchema } from "./schemas";
import * as legacy from "./service";

const tags = ["Deprecated: user groups and end users"];

const createUserGroup = apiOperation({
  method: "post",
  path: "/api/create_user_group/",
  operationId: "createUserGroup",
  tags,
  summary: "Get or create a user group (deprecated: use create_customer)",
  description: "A user group is a customer at the root level; `user_group_id` is its provided_id.",
  access: "write",
  database: "primary",
  successor: "/api/create_customer/",
  body: UserGroupBody,
  response: successSchema({ new_user_group: z.boolean(), user_group: UserGroupSchema }),
});

const updateUserGroup = apiOperation({
  method: "post",
  path: "/api/update_user_group/",
  operationId: "updateUserGroup",
  tags,
  summary: "Update a user group (deprecated: use update_customer)",
  access: "write",
  database: "primary",
  successor: "/api/update_customer/",
  body: UserGroupBody,
  response: successSchema({ user_group: UpdatedUserGroupSchema }),
});

const createEndUser = apiOperation({
  method: "post",
  path: "/api/create_end_user/",
  operationId: "createEndUser",
  tags,
  summary: "Get or create an end user (deprecated: use the customer's emails and properties)",
  access: "write",
  database: "primary",
  successor: "/api/update_customer/",
  body: CreateEndUserBody,
  response: successSchema({ end_user: EndUserSchema }),
});

const updateEndUser = apiOperation({
  method: "post",
  path: "/api/update_end_user/",
  operationId: "updateEndUser",
  tags,
  summary: "Update (or create) an end user (deprecated: use the customer's emails and properties)",
  access: "write",
  database: "primary",
  successor: "/api/update_customer/",
  body: UpdateEndUserBody,
  response: successSchema({ end_user: EndUserSchema }),
});

export function registerLegacyRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createUserGroup, async (c) => {
    const result = await legacy.createUserGroup(await customerScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, ...result }, 200);
  });
  app.openapi(updateUserGroup, async (c) => {
    const user_group = await legacy.updateUserGroup(await customerScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, user_group }, 200);
  });
  app.openapi(createEndUser, async (c) => {
    const end_user = await legacy.createEndUser(await customerScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, end_user }, 200);
  });
  app.openapi(updateEndUser, async (c) => {
    const end_user = await legacy.updateEndUser(await customerScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, end_user }, 200);
  });
}
