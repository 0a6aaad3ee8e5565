-- Named agent definitions (config/agents/*.yml, the Agents page): immutable, content-addressed revisions,
-- like graph_specs. The latest row of a name is the definition chat and agent nodes use.
CREATE TABLE "agent_definitions" (
    "agent_id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "yaml" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL
);

CREATE INDEX "agent_definitions_name_created_at_idx" ON "agent_definitions"("name", "created_at");
