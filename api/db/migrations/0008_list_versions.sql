CREATE TABLE "offchain"."list_versions" (
	"slot" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "offchain"."list_versions" ("slot") SELECT generate_series(0, 15) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "offchain"."bump_list_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "offchain"."list_versions" SET "version" = "version" + 1 WHERE "slot" = pg_backend_pid() % 16;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- an inserted or deleted draft changes the listed set only when it carries a token id (a new draft is unminted)
CREATE OR REPLACE FUNCTION "offchain"."bump_list_version_if_minted"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE minted boolean;
BEGIN
  -- separate statements: each trigger has only its own transition table
  IF TG_OP = 'INSERT' THEN
    minted := EXISTS (SELECT 1 FROM new_rows WHERE token_id IS NOT NULL);
  ELSE
    minted := EXISTS (SELECT 1 FROM old_rows WHERE token_id IS NOT NULL);
  END IF;
  IF minted THEN
    UPDATE "offchain"."list_versions" SET "version" = "version" + 1 WHERE "slot" = pg_backend_pid() % 16;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_version_insert" AFTER INSERT ON "offchain"."pod_drafts"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "offchain"."bump_list_version_if_minted"();
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_version_delete" AFTER DELETE ON "offchain"."pod_drafts"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "offchain"."bump_list_version_if_minted"();
--> statement-breakpoint
-- the columns of the list's predicate (listed: token id, mint, ban, archive) and of its search document
CREATE TRIGGER "pod_drafts_list_version_update"
  AFTER UPDATE OF "token_id", "mint_tx_hash", "banned", "archived_at", "pod_name", "pod_description" ON "offchain"."pod_drafts"
  FOR EACH STATEMENT EXECUTE FUNCTION "offchain"."bump_list_version"();
--> statement-breakpoint
CREATE TRIGGER "pod_drafts_list_version_truncate" AFTER TRUNCATE ON "offchain"."pod_drafts"
  FOR EACH STATEMENT EXECUTE FUNCTION "offchain"."bump_list_version"();
