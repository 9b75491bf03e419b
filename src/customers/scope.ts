import { config } from "../config";
import type { CustomerScope } from "./service";
import { customerTokenHmacKey } from "./tokens";
import type { Database } from "../db/client";
import type { AppContext } from "../http/context";

/** What every operation on a token's customers needs: the database and the access group. */
export function accessScope(c: AppContext): { db: Database; accessGroupId: number } {
  return { db: c.get("db"), accessGroupId: c.get("principal").accessGroupId };
}

/** The caller's customer scope: its access group, the database, the workspace settings. */
export async function customerScope(c: AppContext): Promise<CustomerScope> {
  return {
    ...accessScope(c),
    tokenKey: await customerTokenHmacKey(c.env),
    paidCustomerLimit: config(c.env).PAID_CUSTOMER_LIMIT,
  };
}
