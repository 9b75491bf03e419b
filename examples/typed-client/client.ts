// A vendor's typed client of this service (docs/getting-started.md, "A typed client"): the types
// are generated from the live /openapi.json by openapi-typescript into ./openapi.d.ts, and the
// calls are made with openapi-fetch, so a wrong path, body field or answer field is a type error.
// test/e2e/api-explorer.test.ts generates the types, type-checks this file and runs it.
import createClient from "openapi-fetch";
import type { paths } from "./openapi";

/** The API with your API token (`Service-Authorization: Token <API_KEY>`). */
export function dashboardApi(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { "Service-Authorization": `Token ${apiKey}` } });
}

type Api = ReturnType<typeof dashboardApi>;

/** The error code of an answer that is not a success (`{ success: 0, error: { code, … } }`). */
function failed(operation: string, error: { error: { code: string; message: string } } | undefined): never {
  throw new Error(`${operation}: ${error?.error.code ?? "no answer"} ${error?.error.message ?? ""}`);
}

/** Creates a customer, reads it back, gives it a blueprint of one table of `schemaId`, and deletes it. */
export async function customerRoundTrip(api: Api, providedId: string, schemaId: number) {
  const created = await api.POST("/api/create_customer/", { body: { provided_id: providedId, name: "Typed client" } });
  if (!created.data) failed("create_customer", created.error);
  const customer = created.data.customer;

  const fetched = await api.POST("/api/get_customer/", { body: { provided_id: providedId } });
  if (!fetched.data) failed("get_customer", fetched.error);

  const blueprint = await api.POST("/api/create_blueprint/", {
    body: {
      customer_id: providedId,
      blueprint_name: "Orders",
      tables: [
        {
          table_name: "orders",
          schema_id: schemaId,
          columns: [
            { name: "id", type: "INTEGER", can_be_grouped: false },
            { name: "product", type: "STRING" },
          ],
        },
      ],
    },
  });
  if (!blueprint.data) failed("create_blueprint", blueprint.error);

  const deleted = await api.DELETE("/api/delete_customer/", { body: { current_token: customer.token } });
  if (!deleted.data) failed("delete_customer", deleted.error);

  const gone = await api.POST("/api/get_customer/", { body: { provided_id: providedId } });
  return {
    created: customer.provided_id,
    fetched: fetched.data.customer.name,
    blueprintId: blueprint.data.blueprint_id,
    deleted: deleted.data.success,
    afterDelete: gone.error?.error.code,
  };
}

/** What the generated types refuse (each line must be an error, or the type check fails). */
export function refusedByTheTypes(api: Api) {
  // @ts-expect-error: no such operation
  void api.POST("/api/create_customers/", { body: { provided_id: "x" } });
  // @ts-expect-error: get_customer takes provided_id
  void api.POST("/api/get_customer/", { body: { customer_id: "x" } });
  // @ts-expect-error: a column type the API does not know
  void api.POST("/api/create_blueprint/", { body: { customer_id: "x", blueprint_name: "x", tables: [{ table_name: "t", schema_id: 1, columns: [{ name: "c", type: "TEXT" }] }] } });
}
