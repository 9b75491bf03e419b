CREATE TABLE `blueprints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`embed_id` text NOT NULL,
	`name` text NOT NULL,
	`customer_id` integer NOT NULL,
	`tables` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blueprints_embed_id` ON `blueprints` (`embed_id`);--> statement-breakpoint
CREATE INDEX `blueprints_customer` ON `blueprints` (`customer_id`,`id`);--> statement-breakpoint
CREATE TABLE `end_users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`customer_id` integer NOT NULL,
	`provided_id` text NOT NULL,
	`email` text NOT NULL,
	`attributes` text DEFAULT '{}' NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `end_users_customer_provided_id` ON `end_users` (`customer_id`,`provided_id`);--> statement-breakpoint
CREATE INDEX `end_users_email` ON `end_users` (`customer_id`,`email`);