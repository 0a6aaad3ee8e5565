import type { Metadata } from "next";
import { Suspense } from "react";
import { TraceView } from "@/components/traces/trace-view";

export const metadata: Metadata = { title: "Trace" };

/** /traces?session=<chat>&turn=<turn> (a chat turn) or ?instance=&node=&turn= (an agent node's turn): its trace as a waterfall. */
export default function TracePage() {
  return (
    <Suspense>
      <TraceView />
    </Suspense>
  );
}
