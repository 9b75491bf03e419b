-- Dashboard invalidation per access group (POST /api/invalidate_cache/ with
-- dashboard_embed_id): a dashboard is shared by every access group, so its one version
-- would let one group's write token make every other group's customers miss. Each group
-- bumps its own entry of this object ({"<access group id>": version}); the render reads it
-- on the dashboard row it reads anyway.
ALTER TABLE `dashboards` ADD `group_cache_versions` text DEFAULT '{}' NOT NULL;
