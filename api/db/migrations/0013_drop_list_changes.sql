-- the API no longer keeps the listed pods in memory: nothing reads which pods a write changed
DROP TRIGGER IF EXISTS "pod_drafts_list_change_insert" ON "offchain"."pod_drafts";--> statement-breakpoint
DROP TRIGGER IF EXISTS "pod_drafts_list_change_update" ON "offchain"."pod_drafts";--> statement-breakpoint
DROP TRIGGER IF EXISTS "pod_drafts_list_change_delete" ON "offchain"."pod_drafts";--> statement-breakpoint
DROP TRIGGER IF EXISTS "pod_drafts_list_change_truncate" ON "offchain"."pod_drafts";--> statement-breakpoint
DROP FUNCTION IF EXISTS "offchain"."record_list_change"();--> statement-breakpoint
DROP TABLE "offchain"."list_changes" CASCADE;
