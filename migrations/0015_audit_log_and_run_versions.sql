CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`environment_slug` text NOT NULL,
	`at` integer NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`actor_name` text NOT NULL,
	`resource` text NOT NULL,
	`resource_id` text NOT NULL,
	`action` text NOT NULL,
	`before` text,
	`after` text,
	`request_id` text
);
--> statement-breakpoint
CREATE INDEX `audit_log_env_id_idx` ON `audit_log` (`environment_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
ALTER TABLE `triggers` ADD `workflow_version` integer;