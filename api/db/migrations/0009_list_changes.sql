CREATE TABLE "offchain"."list_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"txid" bigint NOT NULL,
	"token_id" numeric(78, 0),
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "list_changes_txid_idx" ON "offchain"."list_changes" USING btree ("txid");--> statement-breakpoint
CREATE INDEX "list_changes_at_idx" ON "offchain"."list_changes" USING btree ("at");--> statement-breakpoint
-- the token ids whose listing a pod draft write changed (see api/db/offchain/read-versions.ts)
CREATE OR REPLACE FUNCTION "offchain"."record_list_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE txid bigint := pg_current_xact_id()::text::bigint;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO "offchain"."list_changes" ("txid", "token_id") VALUES (txid, NULL);
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    IF OLD.token_id IS NOT NULL THEN
      INSERT INTO "offchain"."list_changes" ("txid", "token_id") VALUES (txid, OLD.token_id);
    END IF;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "offchain"."list_changes" ("txid", "token_id") VALUES (txid, NEW.token_id);
  ELSIF TG_OP = 'UPDATE' THEN
    IF NEW.token_id IS NOT NULL AND NEW.token_id IS DISTINCT FROM OLD.token_id THEN
      INSERT INTO "offchain"."list_changes" ("txid", "token_id") VALUES (txid, NEW.token_id);
    END IF;
  END IF;
  DELETE FROM "offchain"."list_changes" WHERE "at" < now() - interval '1 day';
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_change_insert" AFTER INSERT ON "offchain"."pod_drafts"
  FOR EACH ROW WHEN (NEW.token_id IS NOT NULL) EXECUTE FUNCTION "offchain"."record_list_change"();
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_change_delete" AFTER DELETE ON "offchain"."pod_drafts"
  FOR EACH ROW WHEN (OLD.token_id IS NOT NULL) EXECUTE FUNCTION "offchain"."record_list_change"();
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_change_update"
  AFTER UPDATE OF "token_id", "mint_tx_hash", "banned", "archived_at" ON "offchain"."pod_drafts"
  FOR EACH ROW WHEN (
    OLD.token_id IS DISTINCT FROM NEW.token_id OR OLD.mint_tx_hash IS DISTINCT FROM NEW.mint_tx_hash
    OR OLD.banned IS DISTINCT FROM NEW.banned OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
  ) EXECUTE FUNCTION "offchain"."record_list_change"();
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_change_truncate" AFTER TRUNCATE ON "offchain"."pod_drafts"
  FOR EACH STATEMENT EXECUTE FUNCTION "offchain"."record_list_change"();
