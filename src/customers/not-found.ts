import { ApiError } from "../http/errors";

// The one way each "no such customer" is reported, named by what was looked up. A customer
// of another access group is reported the same way (docs/api-contract.md, "Errors").

export function customerNotFound(providedId: string, field = "provided_id"): ApiError {
  return new ApiError("customer_not_found", `Customer '${providedId}' does not exist.`, field);
}

export function customerTokenNotFound(): ApiError {
  return new ApiError("customer_not_found", "No customer has this token.", "current_token");
}

/** The deprecated user-group operations name a customer by `user_group_id` (its provided_id). */
export function userGroupIdNotFound(userGroupId: string): ApiError {
  return new ApiError("customer_not_found", `User group '${userGroupId}' does not exist.`, "user_group_id");
}

/** The deprecated end-user operations name a customer by its internal id (`team_id`). */
export function userGroupNotFound(teamId: number): ApiError {
  return new ApiError("customer_not_found", `User group ${teamId} does not exist.`, "customer_id");
}

export function parentNotFound(providedId: string): ApiError {
  return new ApiError("parent_not_found", `Parent customer '${providedId}' does not exist.`, "parent_provided_id");
}
