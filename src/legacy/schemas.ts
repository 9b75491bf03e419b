import { z } from "@hono/zod-openapi";
import { Mapping, Properties, ProvidedId } from "../customers/schemas";
import { Email, jsonObject64KiB, plainText } from "../http/fields";

export const UserGroupBody = z
  .object({
    user_group_id: ProvidedId.openapi({ description: "The customer's provided_id." }),
    name: plainText(1, 256).optional(),
    mapping: Mapping.nullable().optional(),
    is_demo_group: z.boolean().optional(),
    properties: Properties.nullable().optional(),
  })
  .openapi("UserGroupRequest");

export const UserGroupSchema = z
  .object({
    team_id: z.number().int(),
    token: z.string(),
    name: z.string(),
    provided_id: z.string(),
    is_demo_group: z.boolean(),
    properties: z.record(z.string(), z.unknown()).nullable(),
  })
  .openapi("UserGroup");

export const UpdatedUserGroupSchema = UserGroupSchema.extend({
  api_environment_tag: z.enum(["Customer", "Testing"]),
}).openapi("UpdatedUserGroup");

const Attributes = jsonObject64KiB().openapi({
  description: "Free key-value mapping; `header` and `footer` hold HTML for report e-mails.",
});

const EndUserProvidedId = plainText(1, 256);
const TeamId = z.number().int().positive().openapi({ description: "The user group's team_id." });

export const CreateEndUserBody = z
  .object({ provided_id: EndUserProvidedId, email: Email, customer_id: TeamId, attributes: Attributes.optional() })
  .openapi("CreateEndUserRequest");

export const UpdateEndUserBody = z
  .object({ provided_id: EndUserProvidedId, customer_id: TeamId, email: Email.optional(), attributes: Attributes.optional() })
  .openapi("UpdateEndUserRequest");

export const EndUserSchema = z
  .object({ provided_id: z.string(), email: z.string(), attributes: z.string().openapi({ description: "A JSON string." }) })
  .openapi("EndUser");

export type UserGroupInput = z.infer<typeof UserGroupBody>;
export type CreateEndUserInput = z.infer<typeof CreateEndUserBody>;
export type UpdateEndUserInput = z.infer<typeof UpdateEndUserBody>;
