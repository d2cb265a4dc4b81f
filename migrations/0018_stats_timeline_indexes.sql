DROP INDEX `message_events_message_idx`;--> statement-breakpoint
CREATE INDEX `message_events_message_idx` ON `message_events` (`message_id`,`at`,`status`);--> statement-breakpoint
DROP INDEX `messages_env_created_idx`;--> statement-breakpoint
CREATE INDEX `messages_env_created_idx` ON `messages` (`environment_id`,`created_at`,`channel`,`provider`,`status`,`id`);