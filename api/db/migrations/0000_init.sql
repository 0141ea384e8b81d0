-- Hand-edited after generation: the migrator creates the schema first (for its
-- journal table), and the trigram search indexes need pg_trgm.
CREATE SCHEMA IF NOT EXISTS "offchain";
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE TABLE "offchain"."rate_limits" (
	"key" varchar(255) PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" bigint
);
--> statement-breakpoint
CREATE TABLE "offchain"."verified_transactions" (
	"tx_hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"record_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "verified_transactions_tx_hash_lower_case" CHECK ("offchain"."verified_transactions"."tx_hash" = lower("offchain"."verified_transactions"."tx_hash"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."agents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"thumbnail_url" text,
	"is_orchestrator" boolean DEFAULT false NOT NULL,
	"wallet_address" text NOT NULL,
	"credential_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_wallet_address_unique" UNIQUE("wallet_address"),
	CONSTRAINT "agents_credential_hash_unique" UNIQUE("credential_hash"),
	CONSTRAINT "agents_wallet_address_lower_case" CHECK ("offchain"."agents"."wallet_address" = lower("offchain"."agents"."wallet_address"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."boosts_reported" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"subnet_id" text NOT NULL,
	"amount" text NOT NULL,
	"tx_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "boosts_reported_tx_hash_unique" UNIQUE("tx_hash")
);
--> statement-breakpoint
CREATE TABLE "offchain"."comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"pod_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"comment" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "offchain"."feedback" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"pod_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"voting_power" numeric NOT NULL,
	"up_vote" boolean NOT NULL,
	"private_subnet_id" text NOT NULL,
	"votes" numeric NOT NULL,
	"feedback" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "offchain"."pod_drafts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_user_id" uuid,
	"agent_id" uuid,
	"wallet_address" text,
	"subnet_id" text NOT NULL,
	"pod_name" text NOT NULL,
	"url" text NOT NULL,
	"platform" text NOT NULL,
	"category" text NOT NULL,
	"pod_description" text NOT NULL,
	"image_url" text,
	"thumbnail_url" text,
	"pdf_url" text,
	"video_url" text,
	"token_id" numeric(78, 0),
	"mint_tx_hash" text,
	"archived_at" timestamp with time zone,
	"banned" boolean DEFAULT false NOT NULL,
	"ban_reason" text,
	"slop_check_skipped" boolean DEFAULT false NOT NULL,
	"source" text DEFAULT 'platform' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pod_drafts_token_id_unique" UNIQUE("token_id"),
	CONSTRAINT "pod_drafts_mint_tx_hash_unique" UNIQUE("mint_tx_hash"),
	CONSTRAINT "pod_drafts_source" CHECK ("offchain"."pod_drafts"."source" in ('platform', 'agent', 'chat')),
	CONSTRAINT "pod_drafts_wallet_address_lower_case" CHECK ("offchain"."pod_drafts"."wallet_address" = lower("offchain"."pod_drafts"."wallet_address"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."pod_republishes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"pod_draft_id" uuid NOT NULL,
	"tx_hash" text NOT NULL,
	"subnet_token_id" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pod_republishes_tx_hash_unique" UNIQUE("tx_hash")
);
--> statement-breakpoint
CREATE TABLE "offchain"."subnet_drafts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_user_id" uuid,
	"created_by_agent_id" uuid,
	"subnet_creator_type" text NOT NULL,
	"subnet_name" text NOT NULL,
	"image_url" text,
	"subnet_description" text NOT NULL,
	"onboarding_publishers" text NOT NULL,
	"onboarding_voters" text NOT NULL,
	"subnet_goal" text NOT NULL,
	"native_token_address" text NOT NULL,
	"native_token_symbol" text NOT NULL,
	"native_token_decimals" integer NOT NULL,
	"token_id" numeric(78, 0),
	"publish_tx_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subnet_drafts_token_id_unique" UNIQUE("token_id"),
	CONSTRAINT "subnet_drafts_publish_tx_hash_unique" UNIQUE("publish_tx_hash"),
	CONSTRAINT "subnet_drafts_creator_type" CHECK ("offchain"."subnet_drafts"."subnet_creator_type" in ('individual', 'team')),
	CONSTRAINT "subnet_drafts_has_owner" CHECK ("offchain"."subnet_drafts"."owner_user_id" is not null or "offchain"."subnet_drafts"."created_by_agent_id" is not null)
);
--> statement-breakpoint
CREATE TABLE "offchain"."subnet_parameter_updates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subnet_draft_id" uuid NOT NULL,
	"param" text NOT NULL,
	"value" numeric(78, 0) NOT NULL,
	"tx_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subnet_parameter_updates_tx_hash_unique" UNIQUE("tx_hash")
);
--> statement-breakpoint
CREATE TABLE "offchain"."subscription_orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"subnet_id" text NOT NULL,
	"package_id" text NOT NULL,
	"status" text DEFAULT 'CREATED' NOT NULL,
	"tx_hash" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_orders_tx_hash_unique" UNIQUE("tx_hash"),
	CONSTRAINT "subscription_orders_status" CHECK ("offchain"."subscription_orders"."status" in ('CREATED', 'VERIFIED'))
);
--> statement-breakpoint
CREATE TABLE "offchain"."users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"idp_subject" text NOT NULL,
	"wallet_address" text,
	"username" text,
	"avatar_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_idp_subject_unique" UNIQUE("idp_subject"),
	CONSTRAINT "users_wallet_address_unique" UNIQUE("wallet_address"),
	CONSTRAINT "users_wallet_address_lower_case" CHECK ("offchain"."users"."wallet_address" = lower("offchain"."users"."wallet_address"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."votes_reported" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid,
	"agent_id" uuid,
	"pod_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"votes" numeric NOT NULL,
	"up_vote" boolean NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "votes_reported_tx_hash_unique" UNIQUE("tx_hash")
);
--> statement-breakpoint
CREATE TABLE "offchain"."chat_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" uuid NOT NULL,
	"role" text NOT NULL,
	"content" text NOT NULL,
	"mode" text,
	"sources" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_messages_role" CHECK ("offchain"."chat_messages"."role" in ('user', 'assistant'))
);
--> statement-breakpoint
CREATE TABLE "offchain"."chat_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"wallet_address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "chat_sessions_wallet_address_lower_case" CHECK ("offchain"."chat_sessions"."wallet_address" = lower("offchain"."chat_sessions"."wallet_address"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."wallet_nonces" (
	"nonce" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"wallet_address" text NOT NULL,
	"message" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_nonces_wallet_address_lower_case" CHECK ("offchain"."wallet_nonces"."wallet_address" = lower("offchain"."wallet_nonces"."wallet_address"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."wallet_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"wallet_address" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_sessions_token_hash_unique" UNIQUE("token_hash"),
	CONSTRAINT "wallet_sessions_wallet_address_lower_case" CHECK ("offchain"."wallet_sessions"."wallet_address" = lower("offchain"."wallet_sessions"."wallet_address"))
);
--> statement-breakpoint
CREATE TABLE "offchain"."eval_accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "offchain"."eval_api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "eval_api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "offchain"."eval_assessments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"evaluation_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"agent_name" text NOT NULL,
	"model_name" text NOT NULL,
	"score" numeric NOT NULL,
	"decision" text NOT NULL,
	"critique" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eval_assessments_evaluation_account" UNIQUE("evaluation_id","account_id"),
	CONSTRAINT "eval_assessments_decision" CHECK ("offchain"."eval_assessments"."decision" in ('accept', 'revise', 'reject'))
);
--> statement-breakpoint
CREATE TABLE "offchain"."eval_attachments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"evaluation_id" uuid,
	"account_id" uuid NOT NULL,
	"key" text NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" integer,
	"uploaded_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eval_attachments_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "offchain"."eval_human_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"evaluation_id" uuid NOT NULL,
	"reviewer_id" text NOT NULL,
	"reviewer_name" text NOT NULL,
	"score" numeric NOT NULL,
	"decision" text NOT NULL,
	"critique" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eval_human_reviews_decision" CHECK ("offchain"."eval_human_reviews"."decision" in ('accept', 'revise', 'reject'))
);
--> statement-breakpoint
CREATE TABLE "offchain"."evaluations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"eval_id" text NOT NULL,
	"account_id" uuid NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"mode" text DEFAULT 'STANDARD' NOT NULL,
	"score" numeric DEFAULT 0 NOT NULL,
	"payload" text NOT NULL,
	"criteria" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"context" text,
	"settlement_minutes" integer NOT NULL,
	"min_settle_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"verdict" jsonb,
	"idempotency_key" text,
	"request_hash" text,
	"locked_by" text,
	"locked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evaluations_eval_id_unique" UNIQUE("eval_id"),
	CONSTRAINT "evaluations_account_idempotency_key" UNIQUE("account_id","idempotency_key"),
	CONSTRAINT "evaluations_type" CHECK ("offchain"."evaluations"."type" in ('answer', 'plan', 'trace', 'artifact')),
	CONSTRAINT "evaluations_status" CHECK ("offchain"."evaluations"."status" in ('PENDING', 'SETTLED', 'FAILED')),
	CONSTRAINT "evaluations_mode" CHECK ("offchain"."evaluations"."mode" in ('STANDARD', 'LITE'))
);
--> statement-breakpoint
ALTER TABLE "offchain"."boosts_reported" ADD CONSTRAINT "boosts_reported_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "offchain"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."comments" ADD CONSTRAINT "comments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "offchain"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ADD CONSTRAINT "feedback_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "offchain"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."pod_drafts" ADD CONSTRAINT "pod_drafts_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "offchain"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."pod_drafts" ADD CONSTRAINT "pod_drafts_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "offchain"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."pod_republishes" ADD CONSTRAINT "pod_republishes_pod_draft_id_pod_drafts_id_fk" FOREIGN KEY ("pod_draft_id") REFERENCES "offchain"."pod_drafts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."subnet_drafts" ADD CONSTRAINT "subnet_drafts_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "offchain"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."subnet_drafts" ADD CONSTRAINT "subnet_drafts_created_by_agent_id_agents_id_fk" FOREIGN KEY ("created_by_agent_id") REFERENCES "offchain"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."subnet_parameter_updates" ADD CONSTRAINT "subnet_parameter_updates_subnet_draft_id_subnet_drafts_id_fk" FOREIGN KEY ("subnet_draft_id") REFERENCES "offchain"."subnet_drafts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD CONSTRAINT "subscription_orders_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "offchain"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD CONSTRAINT "votes_reported_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "offchain"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD CONSTRAINT "votes_reported_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "offchain"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."chat_messages" ADD CONSTRAINT "chat_messages_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "offchain"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."eval_api_keys" ADD CONSTRAINT "eval_api_keys_account_id_eval_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "offchain"."eval_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."eval_assessments" ADD CONSTRAINT "eval_assessments_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "offchain"."evaluations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."eval_assessments" ADD CONSTRAINT "eval_assessments_account_id_eval_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "offchain"."eval_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."eval_attachments" ADD CONSTRAINT "eval_attachments_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "offchain"."evaluations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."eval_attachments" ADD CONSTRAINT "eval_attachments_account_id_eval_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "offchain"."eval_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."eval_human_reviews" ADD CONSTRAINT "eval_human_reviews_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "offchain"."evaluations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "offchain"."evaluations" ADD CONSTRAINT "evaluations_account_id_eval_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "offchain"."eval_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rate_limits_expire_idx" ON "offchain"."rate_limits" USING btree ("expire");--> statement-breakpoint
CREATE INDEX "verified_transactions_kind_record_idx" ON "offchain"."verified_transactions" USING btree ("kind","record_id");--> statement-breakpoint
CREATE INDEX "boosts_reported_user_idx" ON "offchain"."boosts_reported" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "boosts_reported_subnet_idx" ON "offchain"."boosts_reported" USING btree ("subnet_id");--> statement-breakpoint
CREATE INDEX "comments_pod_created_idx" ON "offchain"."comments" USING btree ("pod_id","created_at","id");--> statement-breakpoint
CREATE INDEX "feedback_pod_epoch_idx" ON "offchain"."feedback" USING btree ("pod_id","epoch");--> statement-breakpoint
CREATE INDEX "feedback_private_subnet_idx" ON "offchain"."feedback" USING btree ("private_subnet_id","created_at");--> statement-breakpoint
CREATE INDEX "feedback_user_idx" ON "offchain"."feedback" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "pod_drafts_owner_user_idx" ON "offchain"."pod_drafts" USING btree ("owner_user_id","created_at");--> statement-breakpoint
CREATE INDEX "pod_drafts_agent_idx" ON "offchain"."pod_drafts" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "pod_drafts_wallet_address_idx" ON "offchain"."pod_drafts" USING btree ("wallet_address","created_at");--> statement-breakpoint
CREATE INDEX "pod_drafts_subnet_idx" ON "offchain"."pod_drafts" USING btree ("subnet_id");--> statement-breakpoint
CREATE INDEX "pod_drafts_search_trgm_idx" ON "offchain"."pod_drafts" USING gin (("pod_name" || ' ' || "pod_description") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "pod_republishes_pod_draft_idx" ON "offchain"."pod_republishes" USING btree ("pod_draft_id","created_at");--> statement-breakpoint
CREATE INDEX "subnet_drafts_owner_user_idx" ON "offchain"."subnet_drafts" USING btree ("owner_user_id","created_at");--> statement-breakpoint
CREATE INDEX "subnet_drafts_created_by_agent_idx" ON "offchain"."subnet_drafts" USING btree ("created_by_agent_id");--> statement-breakpoint
CREATE INDEX "subnet_drafts_search_trgm_idx" ON "offchain"."subnet_drafts" USING gin (("subnet_name" || ' ' || "subnet_description") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "subnet_parameter_updates_subnet_param_idx" ON "offchain"."subnet_parameter_updates" USING btree ("subnet_draft_id","param","created_at");--> statement-breakpoint
CREATE INDEX "subscription_orders_agent_subnet_idx" ON "offchain"."subscription_orders" USING btree ("agent_id","subnet_id","expires_at");--> statement-breakpoint
CREATE INDEX "votes_reported_pod_epoch_idx" ON "offchain"."votes_reported" USING btree ("pod_id","epoch");--> statement-breakpoint
CREATE INDEX "votes_reported_user_epoch_idx" ON "offchain"."votes_reported" USING btree ("user_id","epoch");--> statement-breakpoint
CREATE INDEX "votes_reported_agent_idx" ON "offchain"."votes_reported" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "chat_messages_session_created_idx" ON "offchain"."chat_messages" USING btree ("session_id","created_at");--> statement-breakpoint
CREATE INDEX "chat_sessions_wallet_address_idx" ON "offchain"."chat_sessions" USING btree ("wallet_address","updated_at");--> statement-breakpoint
CREATE INDEX "wallet_nonces_expires_idx" ON "offchain"."wallet_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "wallet_sessions_wallet_address_idx" ON "offchain"."wallet_sessions" USING btree ("wallet_address");--> statement-breakpoint
CREATE INDEX "wallet_sessions_expires_idx" ON "offchain"."wallet_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "eval_api_keys_account_idx" ON "offchain"."eval_api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "eval_assessments_account_idx" ON "offchain"."eval_assessments" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "eval_attachments_evaluation_idx" ON "offchain"."eval_attachments" USING btree ("evaluation_id");--> statement-breakpoint
CREATE INDEX "eval_attachments_account_idx" ON "offchain"."eval_attachments" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "eval_human_reviews_evaluation_idx" ON "offchain"."eval_human_reviews" USING btree ("evaluation_id","created_at");--> statement-breakpoint
CREATE INDEX "evaluations_status_min_settle_idx" ON "offchain"."evaluations" USING btree ("status","min_settle_at");--> statement-breakpoint
CREATE INDEX "evaluations_account_created_idx" ON "offchain"."evaluations" USING btree ("account_id","created_at");