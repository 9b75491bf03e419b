import { numberVar } from "../env";
import type { CustomerScope } from "../customers/service";
import { customerTokenKey } from "../customers/tokens";
import type { AppContext } from "./context";

/** The caller's customer scope: its access group, the database, the workspace settings. */
export async function customerScope(c: AppContext): Promise<CustomerScope> {
  return {
    db: c.get("db"),
    accessGroupId: c.get("principal").accessGroupId,
    tokenKey: await customerTokenKey(c.env),
    paidCustomerLimit: numberVar(c.env.PAID_CUSTOMER_LIMIT, 0),
  };
}
