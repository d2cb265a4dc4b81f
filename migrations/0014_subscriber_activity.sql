CREATE TABLE `subscriber_activity` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`type` text NOT NULL,
	`reason` text,
	`preferences` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `subscriber_activity_timeline_idx` ON `subscriber_activity` (`environment_id`,`subscriber_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `preference_link_settings` ADD `translations` text;