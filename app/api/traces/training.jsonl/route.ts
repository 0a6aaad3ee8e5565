import { restRoute } from "@/server/api/rest";
import { TrainingExportQuery } from "@/server/api/turn-page-args";

export const dynamic = "force-dynamic";

/**
 * GET /api/traces/training.jsonl?source=all|chat|node&since= — the training-data export: one JSON line per
 * turn marked relevant (the training_data hook's tag, or a person's choice on the trace page), newest
 * first, in the OpenAI chat fine-tuning shape { messages, metadata }. Streamed as it is read.
 */
export const GET = restRoute({
  query: TrainingExportQuery,
  handle: ({ services, query }) => {
    const lines = services.traces.trainingLines(query);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await lines.return(undefined);
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": 'attachment; filename="training.jsonl"',
        "cache-control": "private, no-store",
      },
    });
  },
});
