-- Alerts, self-service subscriptions, one-click unsubscribe and saved reports in delivery.
--
-- An alert is a second kind of rule of the one scheduler: it lives in `report_schedules`
-- (kind 'alert'), so it is claimed, fanned out and delivered by the same code and the same
-- unique slot key as a schedule. Its own fields are NULL on a schedule.
ALTER TABLE `report_schedules` ADD `kind` text DEFAULT 'schedule' NOT NULL;
--> statement-breakpoint
-- Who made the rule: the vendor's API, or a viewer subscribing from the embed page.
ALTER TABLE `report_schedules` ADD `source` text DEFAULT 'api' NOT NULL;
--> statement-breakpoint
-- A viewer's own address (source 'embed'): what their subscription list is looked up by.
ALTER TABLE `report_schedules` ADD `subscriber_email` text;
--> statement-breakpoint
-- A saved report delivered instead of a dashboard (dashboard_embed_id is then '').
ALTER TABLE `report_schedules` ADD `report_id` text;
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `panel_id` text;
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `alert_column` text;
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `condition_op` text;
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `condition_value` real;
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `notify` text;
--> statement-breakpoint
ALTER TABLE `report_schedules` ADD `callback_url` text;
--> statement-breakpoint
CREATE INDEX `report_schedules_subscriber` ON `report_schedules` (`customer_id`,`subscriber_email`);
--> statement-breakpoint
-- A delivery job of a saved report (dashboard_embed_id is then '').
ALTER TABLE `jobs` ADD `report_id` text;
--> statement-breakpoint
-- One evaluation of an alert for one customer in one run. The newest one of a (alert,
-- customer) is that pair's on_change state (`holds`: 1, 0, NULL = unknown).
CREATE TABLE `alert_evaluations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alert_id` text NOT NULL,
	`run_id` integer NOT NULL,
	`customer_id` integer NOT NULL,
	`slot` text NOT NULL,
	`value` real,
	`holds` integer,
	`fired` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`alert_id`) REFERENCES `report_schedules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`run_id`) REFERENCES `report_schedule_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_evaluations_run_customer` ON `alert_evaluations` (`run_id`,`customer_id`);
--> statement-breakpoint
CREATE INDEX `alert_evaluations_alert_customer` ON `alert_evaluations` (`alert_id`,`customer_id`,`id`);
--> statement-breakpoint
-- Unsubscribe links: the SHA-256 of each token (the token itself is never stored) and the
-- (rule, address) it stops. It lives as long as its schedule or alert.
CREATE TABLE `unsubscribe_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`schedule_id` text NOT NULL,
	`email` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`schedule_id`) REFERENCES `report_schedules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `unsubscribe_tokens_schedule` ON `unsubscribe_tokens` (`schedule_id`);
--> statement-breakpoint
-- Addresses (lower-cased) removed from a schedule or alert for good.
CREATE TABLE `schedule_unsubscribes` (
	`schedule_id` text NOT NULL,
	`email` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`schedule_id`, `email`),
	FOREIGN KEY (`schedule_id`) REFERENCES `report_schedules`(`id`) ON UPDATE no action ON DELETE cascade
);
