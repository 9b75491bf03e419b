-- Jobs outlive their customer: a customer deleted while its job waits leaves the job
-- (customer_id NULL) so that it can end `failed` with a reason instead of vanishing.
-- SQLite cannot change a foreign key in place: the table is rebuilt.
CREATE TABLE `jobs_new` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`customer_id` integer,
	`access_group_id` integer NOT NULL,
	`dashboard_embed_id` text NOT NULL,
	`request` text NOT NULL,
	`file_key` text,
	`content_type` text,
	`email_claimed_at` text,
	`sent_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `jobs_new` SELECT `id`, `kind`, `status`, `attempts`, `error`, `customer_id`, `access_group_id`, `dashboard_embed_id`,
	`request`, `file_key`, `content_type`, `email_claimed_at`, `sent_at`, `created_at`, `updated_at` FROM `jobs`;
--> statement-breakpoint
DROP TABLE `jobs`;
--> statement-breakpoint
ALTER TABLE `jobs_new` RENAME TO `jobs`;
--> statement-breakpoint
CREATE INDEX `jobs_customer` ON `jobs` (`customer_id`);
--> statement-breakpoint
-- The stuck-job sweep looks for jobs in one status not updated for a while.
CREATE INDEX `jobs_status_updated` ON `jobs` (`status`, `updated_at`);
--> statement-breakpoint
-- One webhook signing secret per access group (HMAC-SHA256 needs the secret itself).
CREATE TABLE `webhook_secrets` (
	`access_group_id` integer PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`access_group_id`) REFERENCES `access_groups`(`id`) ON UPDATE no action ON DELETE cascade
);
