CREATE TABLE `proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`resource` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`base_version` integer,
	`base` text,
	`content` text NOT NULL,
	`patch` text,
	`note` text,
	`diff` text NOT NULL,
	`changes` text,
	`validation` text NOT NULL,
	`preview` text,
	`proposed_by_type` text NOT NULL,
	`proposed_by_id` text,
	`proposed_by_name` text NOT NULL,
	`created_at` integer NOT NULL,
	`decided_by_type` text,
	`decided_by_id` text,
	`decided_by_name` text,
	`decided_at` integer,
	`applied_version` integer,
	`reject_reason` text
);
--> statement-breakpoint
CREATE INDEX `proposals_env_status_idx` ON `proposals` (`environment_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `proposals_env_id_idx` ON `proposals` (`environment_id`,`id`);--> statement-breakpoint
ALTER TABLE `audit_log` ADD `proposal_id` text;