CREATE TABLE `sandbox_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`message_id` text NOT NULL,
	`channel` text NOT NULL,
	`provider` text NOT NULL,
	`to` text NOT NULL,
	`content` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_messages_env_created_idx` ON `sandbox_messages` (`environment_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `subscribers` ADD `preferences` text;