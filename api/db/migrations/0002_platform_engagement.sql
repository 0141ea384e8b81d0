DROP INDEX "offchain"."feedback_private_subnet_idx";--> statement-breakpoint
DROP INDEX "offchain"."boosts_reported_subnet_idx";--> statement-breakpoint
DROP INDEX "offchain"."feedback_pod_epoch_idx";--> statement-breakpoint
DROP INDEX "offchain"."votes_reported_pod_epoch_idx";--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ALTER COLUMN "voting_power" SET DATA TYPE numeric(78, 0);--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ALTER COLUMN "votes" SET DATA TYPE numeric(78, 0);--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ALTER COLUMN "votes" SET DATA TYPE numeric(78, 0);--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ALTER COLUMN "log_index" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."boosts_reported" ADD COLUMN "subnet_token_id" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."boosts_reported" ADD COLUMN "staker" text NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."boosts_reported" ADD COLUMN "amount_raw" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ADD COLUMN "voter" text NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ADD COLUMN "pod_token_id" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ADD COLUMN "subnet_token_id" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD COLUMN "subnet_token_id" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD COLUMN "subscription_days" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD COLUMN "amount" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD COLUMN "block_number" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD COLUMN "vote_id" text NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD COLUMN "pod_token_id" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD COLUMN "subnet_token_id" numeric(78, 0) NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD COLUMN "voter" text NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD COLUMN "voting_power" numeric(78, 0) NOT NULL;--> statement-breakpoint
CREATE INDEX "feedback_subnet_idx" ON "offchain"."feedback" USING btree ("subnet_token_id","created_at");--> statement-breakpoint
CREATE INDEX "boosts_reported_subnet_idx" ON "offchain"."boosts_reported" USING btree ("subnet_token_id");--> statement-breakpoint
CREATE INDEX "feedback_pod_epoch_idx" ON "offchain"."feedback" USING btree ("pod_token_id","epoch");--> statement-breakpoint
CREATE INDEX "votes_reported_pod_epoch_idx" ON "offchain"."votes_reported" USING btree ("pod_token_id","epoch","voter");--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ADD CONSTRAINT "feedback_voter_pod_epoch_direction" UNIQUE("voter","pod_token_id","epoch","up_vote");--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD CONSTRAINT "votes_reported_vote_id_unique" UNIQUE("vote_id");--> statement-breakpoint
ALTER TABLE "offchain"."boosts_reported" ADD CONSTRAINT "boosts_reported_staker_lower_case" CHECK ("offchain"."boosts_reported"."staker" = lower("offchain"."boosts_reported"."staker"));--> statement-breakpoint
ALTER TABLE "offchain"."boosts_reported" ADD CONSTRAINT "boosts_reported_tx_hash_lower_case" CHECK ("offchain"."boosts_reported"."tx_hash" = lower("offchain"."boosts_reported"."tx_hash"));--> statement-breakpoint
ALTER TABLE "offchain"."feedback" ADD CONSTRAINT "feedback_voter_lower_case" CHECK ("offchain"."feedback"."voter" = lower("offchain"."feedback"."voter"));--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD CONSTRAINT "subscription_orders_verified_expiry" CHECK (("offchain"."subscription_orders"."status" = 'VERIFIED') = ("offchain"."subscription_orders"."expires_at" is not null and "offchain"."subscription_orders"."verified_at" is not null));--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD CONSTRAINT "subscription_orders_tx_hash_lower_case" CHECK ("offchain"."subscription_orders"."tx_hash" = lower("offchain"."subscription_orders"."tx_hash"));--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD CONSTRAINT "votes_reported_voter_lower_case" CHECK ("offchain"."votes_reported"."voter" = lower("offchain"."votes_reported"."voter"));--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD CONSTRAINT "votes_reported_tx_hash_lower_case" CHECK ("offchain"."votes_reported"."tx_hash" = lower("offchain"."votes_reported"."tx_hash"));--> statement-breakpoint
ALTER TABLE "offchain"."votes_reported" ADD CONSTRAINT "votes_reported_reporter" CHECK ("offchain"."votes_reported"."user_id" is not null or "offchain"."votes_reported"."agent_id" is not null);