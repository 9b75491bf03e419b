-- Scheduled reports: a schedule e-mails one customer, or every customer of a group tag in
-- its access group, a dashboard on a cron in an IANA time zone. Each run claims its slot
-- with a unique key before any e-mail job exists, so a slot can never run twice.
CREATE TABLE `report_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`access_group_id` integer NOT NULL,
	`dashboard_embed_id` text NOT NULL,
	`customer_id` integer,
	`group_tag_id` integer,
	`cron` text NOT NULL,
	`timezone` text NOT NULL,
	`recipients` text DEFAULT '[]' NOT NULL,
	`format` text DEFAULT 'report' NOT NULL,
	`subject` text,
	`variables` text,
	`paused` integer DEFAULT false NOT NULL,
	`next_run_at` text,
	`link_base` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`access_group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`group_tag_id`) REFERENCES `group_tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `report_schedules_access_group` ON `report_schedules` (`access_group_id`,`created_at`);
--> statement-breakpoint
CREATE INDEX `report_schedules_due` ON `report_schedules` (`next_run_at`);
--> statement-breakpoint
CREATE INDEX `report_schedules_customer` ON `report_schedules` (`customer_id`);
--> statement-breakpoint
CREATE INDEX `report_schedules_group_tag` ON `report_schedules` (`group_tag_id`);
--> statement-breakpoint
CREATE TABLE `report_schedule_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`schedule_id` text NOT NULL,
	`slot` text NOT NULL,
	`trigger` text NOT NULL,
	`job_ids` text DEFAULT '[]' NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`not_started` integer DEFAULT 0 NOT NULL,
	`fanned_out_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`schedule_id`) REFERENCES `report_schedules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `report_schedule_runs_slot` ON `report_schedule_runs` (`schedule_id`,`slot`) WHERE `trigger` = 'schedule';
--> statement-breakpoint
CREATE INDEX `report_schedule_runs_schedule` ON `report_schedule_runs` (`schedule_id`,`id`);
