import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { plainText } from "../http/fields";
import { apiOperation, successSchema } from "../http/openapi";
import * as groupTags from "./service";

const tags = ["Group tags"];
const TagName = plainText(1, 64).openapi({ example: "vip" });
const GroupTagSchema = z.object({ name: z.string() }).openapi("GroupTag");

const create = apiOperation({
  method: "post",
  path: "/api/create_group_tag/",
  operationId: "createGroupTag",
  tags,
  summary: "Create a group tag",
  description: "Names are unique case-insensitively and keep the case given.",
  access: "write",
  database: "primary",
  body: z.object({ name: TagName }).openapi("CreateGroupTagRequest"),
  response: successSchema({ group_tag: GroupTagSchema }),
});

const list = apiOperation({
  method: "get",
  path: "/api/group_tags/",
  operationId: "listGroupTags",
  tags,
  summary: "List group tags (ordered by name, case-insensitively)",
  access: "read",
  database: "session",
  response: successSchema({ group_tags: z.array(GroupTagSchema) }),
});

const rename = apiOperation({
  method: "post",
  path: "/api/rename_group_tag/",
  operationId: "renameGroupTag",
  tags,
  summary: "Rename a group tag",
  description:
    "Customers keep the tag under its new name. Tags are shared by every access group: while customers, schedules or alerts of another access group use the tag, it cannot be renamed (409 `group_tag_in_use_elsewhere`, nothing changes).",
  access: "write",
  database: "primary",
  body: z.object({ name: TagName, new_name: TagName }).openapi("RenameGroupTagRequest"),
  response: successSchema({ group_tag: GroupTagSchema }),
});

const remove = apiOperation({
  method: "post",
  path: "/api/delete_group_tag/",
  operationId: "deleteGroupTag",
  tags,
  summary: "Delete a group tag",
  description:
    "The tag is removed from every customer. While customers, schedules or alerts of another access group use the tag, it cannot be deleted (409 `group_tag_in_use_elsewhere`, nothing changes).",
  access: "write",
  database: "primary",
  body: z.object({ name: TagName }).openapi("DeleteGroupTagRequest"),
  response: successSchema({}),
});

export function registerGroupTagRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(create, async (c) => {
    const group_tag = await groupTags.createGroupTag(c.get("db"), c.req.valid("json").name);
    return c.json({ success: 1 as const, group_tag }, 200);
  });
  app.openapi(list, async (c) => {
    return c.json({ success: 1 as const, group_tags: await groupTags.listGroupTags(c.get("db")) }, 200);
  });
  app.openapi(rename, async (c) => {
    const body = c.req.valid("json");
    const group_tag = await groupTags.renameGroupTag(c.get("db"), c.get("principal").accessGroupId, body.name, body.new_name);
    return c.json({ success: 1 as const, group_tag }, 200);
  });
  app.openapi(remove, async (c) => {
    await groupTags.deleteGroupTag(c.get("db"), c.get("principal").accessGroupId, c.req.valid("json").name);
    return c.json({ success: 1 as const }, 200);
  });
}
