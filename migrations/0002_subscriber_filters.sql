CREATE INDEX `subscribers_env_email_idx` ON `subscribers` (`environment_id`,`email`);--> statement-breakpoint
CREATE INDEX `subscribers_env_phone_idx` ON `subscribers` (`environment_id`,`phone`);--> statement-breakpoint
CREATE INDEX `subscribers_env_updated_idx` ON `subscribers` (`environment_id`,`updated_at`);