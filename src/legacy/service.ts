import * as customers from "../customers/service";
import type { CustomerScope } from "../customers/service";
import type { Customer } from "../customers/schemas";
import { userGroupIdNotFound, userGroupNotFound } from "../customers/not-found";
import { ApiError } from "../http/errors";
import * as repo from "./repository";
import type { CreateEndUserInput, UpdateEndUserInput, UserGroupInput } from "./schemas";

/**
 * Deprecated user groups and end users (docs/api-contract.md, "Deprecated user groups and end users"). A user group is a customer
 * (`user_group_id` = provided_id, `team_id` = internal id); every rule is the customers'.
 */

function userGroup(id: number, customer: Customer) {
  return {
    team_id: id,
    token: customer.token,
    name: customer.name,
    provided_id: customer.provided_id,
    is_demo_group: customer.is_demo_group,
    properties: customer.properties,
  };
}

/** Errors of the customer rules name the legacy field (and a missing customer, a user group). */
async function asUserGroup<T>(userGroupId: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ApiError && error.code === "customer_not_found" && error.field === "provided_id")
      throw userGroupIdNotFound(userGroupId);
    if (error instanceof ApiError && error.field === "provided_id") {
      throw new ApiError(error.code, error.message, "user_group_id", error.headers);
    }
    throw error;
  }
}

export async function createUserGroup(scope: CustomerScope, input: UserGroupInput) {
  const { new_customer, customer, id } = await asUserGroup(
    input.user_group_id,
    customers.createCustomer(scope, {
      provided_id: input.user_group_id,
      name: input.name,
      mapping: input.mapping,
      is_demo_group: input.is_demo_group,
      properties: input.properties,
    }),
  );
  return { new_user_group: new_customer, user_group: userGroup(id, customer) };
}

export async function updateUserGroup(scope: CustomerScope, input: UserGroupInput) {
  const { customer, id } = await asUserGroup(
    input.user_group_id,
    customers.updateCustomer(scope, {
      provided_id: input.user_group_id,
      name: input.name,
      mapping: input.mapping,
      is_demo_group: input.is_demo_group,
      properties: input.properties,
    }),
  );
  return { ...userGroup(id, customer), api_environment_tag: customer.is_demo_group ? ("Testing" as const) : ("Customer" as const) };
}

/** The API's view of an end user. */
function endUserView(row: Pick<repo.EndUserRow, "providedId" | "email" | "attributes">) {
  // The contract answers attributes as a JSON string: the text stored (JSON.stringify of the object).
  return { provided_id: row.providedId, email: row.email, attributes: JSON.stringify(row.attributes) };
}

/** Get or create: an existing end user is returned unchanged. */
export async function createEndUser(scope: CustomerScope, input: CreateEndUserInput) {
  const { db } = scope;
  const [customer, existing] = await db.batch([
    repo.visibleCustomerById(db, input.customer_id, scope.accessGroupId),
    repo.endUser(db, input.customer_id, input.provided_id),
  ]);
  if (customer.length === 0) throw userGroupNotFound(input.customer_id);
  if (existing.length > 0) return endUserView(existing[0]);
  const [, created] = await db.batch([
    repo.insertEndUser(db, {
      customerId: input.customer_id,
      providedId: input.provided_id,
      email: input.email,
      attributes: input.attributes ?? {},
    }),
    repo.endUser(db, input.customer_id, input.provided_id),
  ]);
  return endUserView(created[0]);
}

/** Replaces `email` and `attributes` when given; creates the end user (needs `email`) when it does not exist. */
export async function updateEndUser(scope: CustomerScope, input: UpdateEndUserInput) {
  const { db } = scope;
  const [customer, existing] = await db.batch([
    repo.visibleCustomerById(db, input.customer_id, scope.accessGroupId),
    repo.endUser(db, input.customer_id, input.provided_id),
  ]);
  if (customer.length === 0) throw userGroupNotFound(input.customer_id);
  const attributes = input.attributes ?? null;
  if (existing.length === 0) {
    if (input.email === undefined) throw new ApiError("validation_error", "email is required to create a new end user.", "email");
    const [, created] = await db.batch([
      repo.insertEndUser(db, {
        customerId: input.customer_id,
        providedId: input.provided_id,
        email: input.email,
        attributes: attributes ?? {},
      }),
      repo.endUser(db, input.customer_id, input.provided_id),
    ]);
    return endUserView(created[0]);
  }
  const [, updated] = await db.batch([
    repo.updateEndUser(db, { customerId: input.customer_id, providedId: input.provided_id, email: input.email ?? null, attributes }),
    repo.endUser(db, input.customer_id, input.provided_id),
  ]);
  return endUserView(updated[0]);
}
