import { measureConcurrentChats, measureFirstTokenLatency, measureTurnPersistence } from "./chat-bench";
import { report } from "./measure";

// Chat turn overhead over a scripted model on a durable (SQLite) session (issue 16's budgets: first token
// on the SSE stream ≤ 5 ms p95 after the provider yields it; a turn's persistence ≤ 2 ms).
const first = await measureFirstTokenLatency();
report("chat_first_token_sse_p50", first.p50, "ms");
report("chat_first_token_sse_p95", first.p95, "ms");
const turn = await measureTurnPersistence();
report("chat_turn_20_tokens_sqlite_p50", turn.sqliteMs, "ms");
report("chat_turn_20_tokens_memory_p50", turn.memoryMs, "ms");
report("chat_turn_persistence_wall", turn.persistenceMs, "ms");
report("chat_turn_persistence_cpu", turn.persistenceCpuMs, "ms");
// 100 chats streaming 200 tokens each at once (no event lost or reordered; RSS ≤ 400 MiB).
const many = await measureConcurrentChats();
report("chat_100x200_events_lost", many.lost, "events");
report("chat_100x200_events_reordered", many.reordered, "events");
report("chat_100x200_wall", many.ms, "ms");
report("peak_rss_chat_process", process.resourceUsage().maxRSS / 1024, "MiB");
