import { afterAll, describe } from "vitest";
import { SqliteChatStore } from "@/server/services/chat/sqlite-chat-store";
import { openGraphDatabase, type Database } from "./graph-database";
import { SqliteSpanSink } from "./sqlite-span-sink";
import { spanSinkTests } from "./testing/span-sink-suite";
import { TempDatabase } from "./testing/temp-database";

describe("SpanSink on SQLite (SqliteSpanSink, read back by it and by SqliteChatStore)", () => {
  const temp = new TempDatabase();
  const readers: Database[] = [];
  afterAll(() => {
    for (const db of readers) db.close();
    temp[Symbol.dispose]();
  });
  spanSinkTests({
    sink: () => new SqliteSpanSink(temp.db),
    // Another connection to the file: what a restarted process reads.
    reader: () => {
      const db = readers[readers.push(openGraphDatabase(temp.file)) - 1];
      const sink = new SqliteSpanSink(db);
      const chats = new SqliteChatStore(db);
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
