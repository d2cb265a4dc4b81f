CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`dispatched_at` integer
);
--> statement-breakpoint
CREATE INDEX `events_env_created_idx` ON `events` (`environment_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_idx` ON `webhook_attempts` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_created_idx` ON `webhook_attempts` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text,
	`description` text,
	`enabled` integer NOT NULL,
	`disabled_reason` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`failing_since` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_env_idx` ON `webhook_endpoints` (`environment_id`,`created_at`);