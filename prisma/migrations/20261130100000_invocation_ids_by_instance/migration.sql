-- An invocation id now starts with its instance's id and a dot: the table, keyed by id alone, keeps an
-- instance's invocations together, so the (instance, node, version) index — a page every node commit
-- wrote — goes. Existing ids, and the ledger's references to them, get the prefix.
DROP INDEX "node_invocations_instance_id_node_id_version_key";

UPDATE "node_invocations" SET "invocation_id" = "instance_id" || '.' || "invocation_id"
WHERE substr("invocation_id", 1, length("instance_id") + 1) <> "instance_id" || '.';

UPDATE "deliver_rows" SET "source_invocation_id" = "instance_id" || '.' || "source_invocation_id"
WHERE "source_invocation_id" IS NOT NULL AND substr("source_invocation_id", 1, length("instance_id") + 1) <> "instance_id" || '.';

UPDATE "deliver_rows" SET "consumed_by" = "instance_id" || '.' || "consumed_by"
WHERE "consumed_by" IS NOT NULL AND substr("consumed_by", 1, length("instance_id") + 1) <> "instance_id" || '.';
