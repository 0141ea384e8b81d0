CREATE TABLE "offchain"."reorged_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "offchain"."reorged_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tx_hash" text NOT NULL,
	"kind" text NOT NULL,
	"record_id" text NOT NULL,
	"block_number" bigint,
	"block_hash" text,
	"reason" text NOT NULL,
	"undone_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "offchain"."verified_transactions" ADD COLUMN "block_number" bigint;--> statement-breakpoint
ALTER TABLE "offchain"."verified_transactions" ADD COLUMN "block_hash" text;--> statement-breakpoint
ALTER TABLE "offchain"."verified_transactions" ADD COLUMN "final" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "reorged_records_tx_hash_idx" ON "offchain"."reorged_records" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "verified_transactions_unfinal_idx" ON "offchain"."verified_transactions" USING btree ("created_at") WHERE not "offchain"."verified_transactions"."final";