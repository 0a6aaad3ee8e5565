-- Every agent turn's root span (the one without a parent), newest first: the Traces list pages through
-- it (start time, then span id, so a page boundary inside one millisecond is exact).
CREATE INDEX "agent_spans_turns_idx" ON "agent_spans"("start_time" DESC, "span_id" DESC) WHERE "parent_span_id" IS NULL;
