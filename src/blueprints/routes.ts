import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { apiOperation, successSchema } from "../http/openapi";
import { accessScope } from "../customers/scope";
import {
  BlueprintIdBody,
  BlueprintSchema,
  BlueprintSummary,
  CreateBlueprintBody,
  CustomerBlueprintsBody,
  UpdateBlueprintBody,
} from "./schemas";
import * as blueprints from "./service";

const tags = ["Blueprints"];

const create = apiOperation({
  method: "post",
  path: "/api/create_blueprint/",
  operationId: "createBlueprint",
  tags,
  summary: "Create a blueprint for a customer",
  access: "write",
  database: "primary",
  body: CreateBlueprintBody,
  response: successSchema({ blueprint_id: z.number().int() }),
});

const update = apiOperation({
  method: "post",
  path: "/api/update_blueprint/",
  operationId: "updateBlueprint",
  tags,
  summary: "Replace all tables of a blueprint",
  description: "The tables given replace every table the blueprint had (no merge).",
  access: "write",
  database: "primary",
  body: UpdateBlueprintBody,
  response: successSchema({}),
});

const listForCustomer = apiOperation({
  method: "post",
  path: "/api/get_customer_blueprints/",
  operationId: "getCustomerBlueprints",
  tags,
  summary: "List a customer's blueprints",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: CustomerBlueprintsBody,
  response: successSchema({ blueprints: z.array(BlueprintSummary) }),
});

const get = apiOperation({
  method: "post",
  path: "/api/get_blueprint/",
  operationId: "getBlueprint",
  tags,
  summary: "Get a blueprint with its tables (defaults filled in)",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: BlueprintIdBody,
  response: successSchema({ blueprint: BlueprintSchema }),
});

export function registerBlueprintRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(create, async (c) => {
    const blueprint_id = await blueprints.createBlueprint(accessScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, blueprint_id }, 200);
  });
  app.openapi(update, async (c) => {
    await blueprints.updateBlueprint(accessScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const }, 200);
  });
  app.openapi(listForCustomer, async (c) => {
    const list = await blueprints.listCustomerBlueprints(accessScope(c), c.req.valid("json").customer_id);
    return c.json({ success: 1 as const, blueprints: list }, 200);
  });
  app.openapi(get, async (c) => {
    const blueprint = await blueprints.getBlueprint(accessScope(c), c.req.valid("json").blueprint_id);
    return c.json({ success: 1 as const, blueprint }, 200);
  });
}
