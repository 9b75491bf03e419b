-- Reports that customers' users save in the report builder (docs/report-builder.md). A report
-- belongs to one blueprint and goes with it (and with its customer); `customer_id` is the
-- blueprint's customer, kept here so every read can require it.
CREATE TABLE `saved_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`blueprint_id` integer NOT NULL,
	`customer_id` integer NOT NULL,
	`name` text NOT NULL,
	`query` text NOT NULL,
	`chart` text NOT NULL,
	`created_by` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`blueprint_id`) REFERENCES `blueprints`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `saved_reports_blueprint` ON `saved_reports` (`blueprint_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `saved_reports_customer` ON `saved_reports` (`customer_id`,`updated_at`);--> statement-breakpoint
-- Builder requests per customer per minute (BUILDER_REQUESTS_PER_MINUTE): one row per
-- customer and window, counted by the request's own batch; older windows are deleted then.
CREATE TABLE `builder_request_counts` (
	`customer_id` integer NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `window_start`)
);
