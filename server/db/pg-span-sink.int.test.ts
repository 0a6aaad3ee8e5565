import { afterAll, beforeAll, describe } from "vitest";
import { PgChatStore } from "@/server/services/chat/pg-chat-store";
import { PgSpanSink } from "./pg-span-sink";
import { PgTestDatabase } from "./pg/testing/pg-test-database";
import { spanSinkTests } from "./testing/span-sink-suite";

describe("SpanSink on PostgreSQL (PgSpanSink, read back by it and by PgChatStore)", () => {
  let database: PgTestDatabase;
  beforeAll(async () => {
    database = await PgTestDatabase.create();
  });
  afterAll(async () => {
    await database?.[Symbol.asyncDispose]();
  });
  spanSinkTests({
    sink: () => new PgSpanSink(database.open().acks),
    // New pools: what another process reads.
    reader: () => {
      const pools = database.open();
      const sink = new PgSpanSink(pools.acks);
      const chats = new PgChatStore(pools.acks);
      return {
        trace: (id) => sink.trace(id),
        recentForSession: (s, limit) => sink.recentForSession(s, limit),
        turn: (s, t) => chats.spans(s, t),
        turnRoots: (after, limit, filter) => sink.turnRoots(after, limit, filter),
        chooseTraining: (spanId, included) => sink.chooseTraining(spanId, included),
      };
    },
  });
});
