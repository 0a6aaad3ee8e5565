-- Finished agent spans (OpenTelemetry GenAI conventions), written by the span hooks through SqliteSpanSink.
CREATE TABLE "agent_spans" (
    "span_id" TEXT NOT NULL PRIMARY KEY,
    "trace_id" TEXT NOT NULL,
    "parent_span_id" TEXT,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "start_time" DATETIME NOT NULL,
    "end_time" DATETIME NOT NULL,
    "attributes" JSONB NOT NULL,
    "status_code" TEXT NOT NULL,
    "status_message" TEXT,
    "session_id" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL
);

CREATE INDEX "agent_spans_trace_id_start_time_idx" ON "agent_spans"("trace_id", "start_time");
CREATE INDEX "agent_spans_session_id_start_time_idx" ON "agent_spans"("session_id", "start_time");
