ALTER TABLE "offchain"."reorged_records" ADD COLUMN "outcome" text DEFAULT 'undone' NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."reorged_records" ADD COLUMN "new_block_number" bigint;--> statement-breakpoint
ALTER TABLE "offchain"."reorged_records" ADD COLUMN "new_block_hash" text;--> statement-breakpoint
ALTER TABLE "offchain"."reorged_records" ADD CONSTRAINT "reorged_records_outcome" CHECK ("offchain"."reorged_records"."outcome" in ('undone', 'reconfirmed'));