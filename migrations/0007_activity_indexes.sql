DROP INDEX `messages_env_created_idx`;--> statement-breakpoint
CREATE INDEX `messages_env_created_idx` ON `messages` (`environment_id`,`created_at`,`channel`,`provider`,`status`);--> statement-breakpoint
CREATE INDEX `triggers_env_workflow_idx` ON `triggers` (`environment_id`,`workflow_key`,`accepted_at`);