CREATE TABLE "offchain"."agent_wallet_nonces" (
	"nonce" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"wallet_address" text NOT NULL,
	"agent_id" uuid,
	"message" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_wallet_nonces_wallet_address_lower_case" CHECK ("offchain"."agent_wallet_nonces"."wallet_address" = lower("offchain"."agent_wallet_nonces"."wallet_address"))
);
--> statement-breakpoint
ALTER TABLE "offchain"."agents" DROP CONSTRAINT "agents_wallet_address_unique";--> statement-breakpoint
ALTER TABLE "offchain"."agents" ALTER COLUMN "wallet_address" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."agents" ADD COLUMN "wallet_bound_at" timestamp with time zone;--> statement-breakpoint
-- Agents registered before this migration hold the wallet generated for them at registration.
UPDATE "offchain"."agents" SET "wallet_bound_at" = "created_at" WHERE "wallet_address" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD COLUMN "wallet_address" text;--> statement-breakpoint
-- Orders placed before this migration were paid by their agent's only wallet.
UPDATE "offchain"."subscription_orders" AS o SET "wallet_address" = a."wallet_address" FROM "offchain"."agents" AS a WHERE a."id" = o."agent_id";--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ALTER COLUMN "wallet_address" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."agent_wallet_nonces" ADD CONSTRAINT "agent_wallet_nonces_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "offchain"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_wallet_nonces_expires_idx" ON "offchain"."agent_wallet_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "agents_wallet_address_idx" ON "offchain"."agents" USING btree ("wallet_address");--> statement-breakpoint
ALTER TABLE "offchain"."agents" ADD CONSTRAINT "agents_wallet_bound_at" CHECK (("offchain"."agents"."wallet_address" is null) = ("offchain"."agents"."wallet_bound_at" is null));--> statement-breakpoint
ALTER TABLE "offchain"."subscription_orders" ADD CONSTRAINT "subscription_orders_wallet_address_lower_case" CHECK ("offchain"."subscription_orders"."wallet_address" = lower("offchain"."subscription_orders"."wallet_address"));