-- Themes (src/themes/) and the presentation of a view: theme, locale and time zone.
--
-- A theme belongs to one access group; its name is unique there case-insensitively
-- (`name_key`), and at most one theme per group is its default (the partial unique index).
-- `document` is the theme as resolved: every color, fonts and logo by SHA-256 (R2).
CREATE TABLE `themes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`access_group_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`document` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`access_group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `themes_group_name_key` ON `themes` (`access_group_id`,`name_key`);
--> statement-breakpoint
CREATE UNIQUE INDEX `themes_group_default` ON `themes` (`access_group_id`) WHERE "is_default" = 1;
--> statement-breakpoint
-- A customer's own presentation; NULL inherits from the parent (computed_* in the answer).
-- The theme by id, so a rename keeps every customer on it; delete_theme refuses while used.
ALTER TABLE `customers` ADD `theme_id` integer REFERENCES themes(id);
--> statement-breakpoint
ALTER TABLE `customers` ADD `locale` text;
--> statement-breakpoint
ALTER TABLE `customers` ADD `timezone` text;
--> statement-breakpoint
-- Schedules, alerts and self-service subscriptions: the theme and locale their deliveries use.
ALTER TABLE `report_schedules` ADD `theme_id` integer REFERENCES themes(id);
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `locale` text;
--> statement-breakpoint
CREATE INDEX `customers_theme` ON `customers` (`theme_id`);
--> statement-breakpoint
CREATE INDEX `report_schedules_theme` ON `report_schedules` (`theme_id`);
