DROP INDEX `workflows_env_key_uq`;--> statement-breakpoint
ALTER TABLE `workflows` ADD `deleted_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `workflows_env_key_live_uq` ON `workflows` (`environment_id`,`key`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `workflows_env_deleted_idx` ON `workflows` (`environment_id`,`deleted_at`);