CREATE TABLE "offchain"."read_versions" (
	"slot" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "pod_drafts_listed_token_idx" ON "offchain"."pod_drafts" USING btree ("token_id") WHERE "offchain"."pod_drafts"."token_id" is not null and "offchain"."pod_drafts"."banned" = false and "offchain"."pod_drafts"."archived_at" is null;--> statement-breakpoint
INSERT INTO "offchain"."read_versions" ("slot") SELECT generate_series(0, 15) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "offchain"."bump_read_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "offchain"."read_versions" SET "version" = "version" + 1 WHERE "slot" = pg_backend_pid() % 16;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['users', 'agents', 'subnet_drafts', 'pod_drafts', 'pod_republishes', 'subnet_parameter_updates',
    'comments', 'votes_reported', 'feedback', 'boosts_reported', 'subscription_orders'] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "offchain".%I FOR EACH STATEMENT EXECUTE FUNCTION "offchain"."bump_read_version"()',
      t || '_read_version', t);
  END LOOP;
END;
$$;
