ALTER TABLE "offchain"."eval_attachments" ADD COLUMN "sha256" text;--> statement-breakpoint
ALTER TABLE "offchain"."evaluations" ADD COLUMN "criteria_source" text DEFAULT 'caller' NOT NULL;--> statement-breakpoint
ALTER TABLE "offchain"."evaluations" ADD CONSTRAINT "evaluations_criteria_source" CHECK ("offchain"."evaluations"."criteria_source" in ('caller', 'service'));