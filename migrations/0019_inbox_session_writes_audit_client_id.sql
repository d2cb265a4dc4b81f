ALTER TABLE `in_app_settings` ADD `session_profile_writes` text DEFAULT 'create_only' NOT NULL;--> statement-breakpoint
ALTER TABLE `in_app_settings` ADD `sessions_reset_at` integer;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `client_request_id` text;