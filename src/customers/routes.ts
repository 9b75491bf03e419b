import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { apiOperation, successSchema } from "../http/openapi";
import { customerScope } from "./scope";
import {
  CreateCustomerBody,
  CurrentTokenBody,
  CustomerSchema,
  ListFilters,
  PagedListQuery,
  ProvidedIdBody,
  UpdateCustomerBody,
} from "./schemas";
import * as customers from "./service";

const tags = ["Customers"];

const createCustomer = apiOperation({
  method: "post",
  path: "/api/create_customer/",
  operationId: "createCustomer",
  tags,
  summary: "Get or create a customer",
  description:
    "Creates the customer when no customer has this `provided_id` (`new_customer: true`); otherwise returns the existing one unchanged and ignores the other fields.",
  access: "write",
  database: "primary",
  body: CreateCustomerBody,
  response: successSchema({ new_customer: z.boolean(), customer: CustomerSchema }),
});

const getCustomer = apiOperation({
  method: "post",
  path: "/api/get_customer/",
  operationId: "getCustomer",
  tags,
  summary: "Get a customer",
  access: "read",
  database: "session",
  notFound: "retry on primary",
  body: ProvidedIdBody,
  response: successSchema({ customer: CustomerSchema }),
});

const listCustomers = apiOperation({
  method: "get",
  path: "/api/customers/",
  operationId: "listCustomersV1",
  tags,
  summary: "List customers (v1, deprecated: use /api/v2/customers/)",
  deprecated: true,
  access: "read",
  database: "session",
  query: ListFilters,
  response: successSchema({ customers: z.array(CustomerSchema) }),
});

const listCustomersV2 = apiOperation({
  method: "get",
  path: "/api/v2/customers/",
  operationId: "listCustomersV2",
  tags,
  summary: "List customers, one page at a time",
  access: "read",
  database: "session",
  query: PagedListQuery,
  response: successSchema({
    total_count: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    next_page: z.number().int().nullable(),
    customers: z.array(CustomerSchema),
  }),
});

const updateCustomer = apiOperation({
  method: "post",
  path: "/api/update_customer/",
  operationId: "updateCustomer",
  tags,
  summary: "Update a customer",
  description: "Every field given replaces that field; fields not given are kept. All rules are re-checked, children included.",
  access: "write",
  database: "primary",
  body: UpdateCustomerBody,
  response: successSchema({ customer: CustomerSchema }),
});

const deleteCustomer = apiOperation({
  method: "delete",
  path: "/api/delete_customer/",
  operationId: "deleteCustomer",
  tags,
  summary: "Delete a customer",
  description: "Refused (409 `customer_has_children`) while the customer has children. Its blueprints and end users go with it.",
  access: "write",
  database: "primary",
  body: CurrentTokenBody,
  response: successSchema({}),
});

const refreshToken = apiOperation({
  method: "post",
  path: "/api/refresh_customer_token/",
  operationId: "refreshCustomerToken",
  tags,
  summary: "Give a customer a new token",
  description: "The old token stops working at once.",
  access: "write",
  database: "primary",
  body: CurrentTokenBody,
  response: successSchema({ customer: CustomerSchema }),
});

export function registerCustomerRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createCustomer, async (c) => {
    const { new_customer, customer } = await customers.createCustomer(await customerScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, new_customer, customer }, 200);
  });
  app.openapi(getCustomer, async (c) => {
    const customer = await customers.getCustomer(await customerScope(c), c.req.valid("json").provided_id);
    return c.json({ success: 1 as const, customer }, 200);
  });
  app.openapi(listCustomers, async (c) => {
    const query = c.req.valid("query");
    const list = await customers.listCustomers(await customerScope(c), {
      parentProvidedId: query.parent_provided_id,
      hierarchyLevelName: query.hierarchy_level_name,
    });
    return c.json({ success: 1 as const, customers: list }, 200);
  });
  app.openapi(listCustomersV2, async (c) => {
    const query = c.req.valid("query");
    const page = await customers.listCustomerPage(await customerScope(c), {
      parentProvidedId: query.parent_provided_id,
      hierarchyLevelName: query.hierarchy_level_name,
      page: query.page,
      pageSize: query.page_size,
    });
    return c.json({ success: 1 as const, ...page }, 200);
  });
  app.openapi(updateCustomer, async (c) => {
    const { customer } = await customers.updateCustomer(await customerScope(c), c.req.valid("json"));
    return c.json({ success: 1 as const, customer }, 200);
  });
  app.openapi(deleteCustomer, async (c) => {
    await customers.deleteCustomer(await customerScope(c), c.req.valid("json").current_token);
    return c.json({ success: 1 as const }, 200);
  });
  app.openapi(refreshToken, async (c) => {
    const customer = await customers.refreshCustomerToken(await customerScope(c), c.req.valid("json").current_token);
    return c.json({ success: 1 as const, customer }, 200);
  });
}
