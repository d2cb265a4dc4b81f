ALTER TABLE `integrations` ADD `tenant_id` text;--> statement-breakpoint
CREATE INDEX `integrations_env_tenant_idx` ON `integrations` (`environment_id`,`tenant_id`);