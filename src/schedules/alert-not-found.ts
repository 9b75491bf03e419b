import { ApiError } from "../http/errors";

export const alertNotFound = (id: string) => new ApiError("alert_not_found", `Alert '${id}' does not exist.`, "id");
