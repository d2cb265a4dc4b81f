CREATE TABLE `in_app_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`workflow_key` text NOT NULL,
	`step_id` text NOT NULL,
	`content` text NOT NULL,
	`tags` text NOT NULL,
	`seen_at` integer,
	`read_at` integer,
	`archived_at` integer,
	`snoozed_until` integer,
	`completed_action` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `in_app_env_subscriber_idx` ON `in_app_notifications` (`environment_id`,`subscriber_id`,`id`);--> statement-breakpoint
CREATE TABLE `in_app_settings` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`application_identifier` text NOT NULL,
	`hmac_secret` text NOT NULL,
	`hmac_required` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `in_app_settings_application_identifier_unique` ON `in_app_settings` (`application_identifier`);