CREATE TABLE "offchain"."webhook_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"url" text NOT NULL,
	"kinds" text[] DEFAULT '{}'::text[] NOT NULL,
	"datanet" numeric(78, 0),
	"pod" numeric(78, 0),
	"wallet" text,
	"secret" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"paused_reason" text,
	"cursor_id" text NOT NULL,
	"cursor_block" numeric(78, 0) NOT NULL,
	"cursor_log_index" integer NOT NULL,
	"floor_id" text NOT NULL,
	"floor_block" numeric(78, 0) NOT NULL,
	"floor_log_index" integer NOT NULL,
	"recent" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"skipped" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"queue" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"last_delivered_id" text,
	"last_delivered_at" timestamp with time zone,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"first_failure_at" timestamp with time zone,
	"last_error" text,
	"last_attempt_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_token" uuid,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_subscriptions_status" CHECK ("offchain"."webhook_subscriptions"."status" IN ('active', 'paused')),
	CONSTRAINT "webhook_subscriptions_wallet_lower_case" CHECK ("offchain"."webhook_subscriptions"."wallet" = lower("offchain"."webhook_subscriptions"."wallet"))
);
--> statement-breakpoint
ALTER TABLE "offchain"."webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "offchain"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_agent_idx" ON "offchain"."webhook_subscriptions" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_due_idx" ON "offchain"."webhook_subscriptions" USING btree ("next_attempt_at") WHERE "offchain"."webhook_subscriptions"."status" = 'active';