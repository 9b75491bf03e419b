CREATE TABLE `access_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_groups_name_key` ON `access_groups` (`name_key`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`access_group_id` integer NOT NULL,
	`permission` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`access_group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `customer_group_tags` (
	`customer_id` integer NOT NULL,
	`group_tag_id` integer NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `group_tag_id`),
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`group_tag_id`) REFERENCES `group_tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `customer_group_tags_tag` ON `customer_group_tags` (`group_tag_id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`provided_id` text NOT NULL,
	`name` text NOT NULL,
	`access_group_id` integer,
	`hierarchy_level_id` integer NOT NULL,
	`parent_id` integer,
	`is_demo` integer DEFAULT false NOT NULL,
	`emails` text DEFAULT '[]' NOT NULL,
	`properties` text,
	`mapping` text,
	`token_nonce` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`access_group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`hierarchy_level_id`) REFERENCES `hierarchy_levels`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`parent_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_provided_id` ON `customers` (`provided_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_token_hash` ON `customers` (`token_hash`);--> statement-breakpoint
CREATE INDEX `customers_access_group` ON `customers` (`access_group_id`,`id`);--> statement-breakpoint
CREATE INDEX `customers_parent` ON `customers` (`parent_id`);--> statement-breakpoint
CREATE INDEX `customers_level` ON `customers` (`hierarchy_level_id`);--> statement-breakpoint
CREATE TABLE `data_sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`provided_id` text,
	`name` text NOT NULL,
	`binding` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `data_sources_provided_id` ON `data_sources` (`provided_id`);--> statement-breakpoint
CREATE TABLE `group_tags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `group_tags_name_key` ON `group_tags` (`name_key`);--> statement-breakpoint
CREATE TABLE `hierarchy_levels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hierarchy_levels_name` ON `hierarchy_levels` (`name`);--> statement-breakpoint
CREATE TABLE `schemas` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL
);
