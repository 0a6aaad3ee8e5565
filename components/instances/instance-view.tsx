"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { HumanInputRequest, InstanceDetail, StoredEventDto, TimelineSummaryDto } from "@/components/api/contract";
import { errorCode, errorMessage, useModexClient } from "@/components/api/modex-client";
import { RUN_CANVAS } from "@/shared/canvas/canvas-fit";
import { type LayoutJson, warmLayoutEngine } from "@/shared/canvas/elk-layout";
import { NODE_STATE_LABEL } from "@/shared/canvas/node-state";
import { PulseAnimator } from "@/components/canvas/pulse-animator";
import { TopologyCanvas } from "@/components/canvas/topology-canvas";
import { edgeId } from "@/shared/canvas/topology";
import { BreakpointsPanel } from "@/components/instances/breakpoints-panel";
import { controlAvailability } from "@/components/instances/control-policy";
import { DeliverDialog } from "@/components/instances/deliver-dialog";
import { type AnswerRecord, HumanInputCard } from "@/components/instances/human-input-card";
import { InstanceActions } from "@/components/instances/instance-actions";
import { InstanceSummary } from "@/components/instances/instance-summary";
import { InstanceToolbar } from "@/components/instances/instance-toolbar";
import { instanceTopology } from "@/shared/canvas/instance-topology";
import { NodeDetail } from "@/components/instances/node-detail";
import { AgentPanels } from "@/components/instances/agent/agent-panels";
import { ReinvokeDialog } from "@/components/instances/reinvoke-dialog";
import { ReplayBar } from "@/components/instances/replay-bar";
import { StatePanel } from "@/components/instances/state-panel";
import { ForkDialog } from "@/components/instances/fork-dialog";
import { useRunPoint } from "@/components/instances/use-run-point";
import { TimelinePanel } from "@/components/instances/timeline-panel";
import { describeEvent, foldEvents } from "@/components/instances/run-model";
import { isAgentApproval } from "@/shared/run-state";
import { type TimelineRowDto, useInstanceTimeline } from "@/components/instances/use-instance-timeline";
import { useReplay } from "@/components/instances/use-replay";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorState } from "@/components/ui/error-state";
import { Skeleton } from "@/components/ui/skeleton";
import { useDocumentTitle } from "@/components/ui/use-document-title";

declare global {
  interface Window {
    /** Deliver-to-pulse timings, read by `npm run bench:web`. */
    __modexPulses?: { deliverId: string; eventAt: number; shownAt: number }[];
  }
}

/** Events that change what `instances.get` returns for the instance (status, versions, waiting, result). */
const REFRESHING = new Set(["instance_status", "interrupt_raised", "run_finished", "drained"]);
/** Events that change a node's invocations: only an open node detail's query reads them. */
const NODE_REFRESHING = new Set(["node_completed", "node_failed", "node_cancelled"]);
const FINISHED = new Set(["completed", "failed", "stopped"]);
const NO_EVENTS: readonly StoredEventDto[] = [];
/** The canvas at a 1440×900 window (sidebar 360 px, toolbar, timeline 240 px): the server-rendered frame is fitted to it. */
const CANVAS_SIZE_HINT = { width: 1080, height: 556 };
/**
 * Fitting a run's graph stops at zoom 0.8, where the cards' smallest text (type, state) is 9 px. The
 * layout wraps a graph too wide for the canvas at that zoom (instanceTopology), so every example opens
 * whole at 1024 and 1440 px; a larger one shows from START and pans, and the fit button shows it whole.
 */
const CANVAS_MIN_FIT_ZOOM = RUN_CANVAS.minZoom;

/** The live instance: topology canvas with node states and pulses, sidebar, timeline, controls. */
export function InstanceView({
  instanceId,
  initial,
}: {
  instanceId: string;
  initial?: { detail?: InstanceDetail; timeline?: TimelineSummaryDto; layout?: LayoutJson | null };
}) {
  const client = useModexClient();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [version, setVersion] = useState<number | undefined>(undefined);
  const detailKey = useMemo(() => ["instances", "get", instanceId, version ?? "latest"], [instanceId, version]);
  // Invocations and delivers come per node (NodeDetail): a long run has thousands.
  const detail = useQuery({
    queryKey: detailKey,
    queryFn: () => client.instances.get.query({ instanceId, version, node: null }),
    // What the server rendered the page with is current: the live stream (which resumes right after
    // it) invalidates the query when the instance changes, so mounting the page does not fetch it again.
    staleTime: version === undefined && initial?.detail ? 10_000 : 0,
    initialData: version === undefined ? initial?.detail : undefined,
    // An unknown id is said at once: retried (React Query's 3 times with backoff), it showed bars for 7 s.
    retry: (n, e) => errorCode(e) !== "NOT_FOUND" && n < 2,
  });
  const shownVersion = detail.data?.summary.shownVersion;
  // The tab names the graph: a row of "Instance 3868…" tabs could not be told apart.
  const missing = detail.isError && errorCode(detail.error) === "NOT_FOUND";
  useDocumentTitle(missing ? "Instance not found" : detail.data ? `${detail.data.summary.graphName} · Instance ${instanceId}` : null);
  const latestVersion = detail.data?.summary.version;

  const animator = useMemo(() => new PulseAnimator(), []);
  // Without ELK's layout from the server, the canvas asks the layout worker: start loading it now.
  const serverLaidOut = !!initial?.layout;
  useEffect(() => {
    if (!serverLaidOut && typeof Worker !== "undefined") warmLayoutEngine();
  }, [serverLaidOut]);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  /** What the pending refresh invalidates: the instance and node details, or node details only. */
  const refreshAll = useRef(false);
  const shownRef = useRef<{ shown?: number; replaying: boolean }>({ replaying: false });
  // Bumped when the user resizes the timeline: the canvas above it then fits again (a banner does not).
  const layoutChanges = useRef(0);
  const timelineResized = useCallback(() => void layoutChanges.current++, []);
  // On a cluster, queued work (a resume, answer or decision no worker had started) ends with its run's
  // start: when that arrives on the stream the view stops saying "queued" at once and reads the instance again.
  const [runStartedAt, setRunStartedAt] = useState(0);
  const queuedShown = useRef(false);

  const onLive = useCallback(
    (e: StoredEventDto) => {
      if (e.event.type === "deliver_promoted" && !shownRef.current.replaying && (shownRef.current.shown === undefined || e.version === shownRef.current.shown)) {
        const { source, target, deliverId } = e.event;
        if (animator.emit(edgeId(source, target), { key: deliverId })) {
          (window.__modexPulses ??= []).push({ deliverId, eventAt: e.at, shownAt: Date.now() });
        }
      }
      // A live run completes nodes many times a second: refetching the whole instance (and re-rendering
      // the view with it) for each would compete with the stream for both the server and the page.
      const started = e.event.type === "run_started" && queuedShown.current;
      if (started) setRunStartedAt(Date.now());
      const all = started || REFRESHING.has(e.event.type);
      if (all || NODE_REFRESHING.has(e.event.type)) {
        refreshAll.current ||= all;
        refreshTimer.current ??= setTimeout(() => {
          refreshTimer.current = null;
          const everything = refreshAll.current;
          refreshAll.current = false;
          void queryClient.invalidateQueries({
            queryKey: ["instances", "get", instanceId],
            predicate: everything ? undefined : (q) => q.queryKey[4] === "node",
          });
        }, 150);
      }
    },
    [animator, queryClient, instanceId],
  );
  const stream = useInstanceTimeline(instanceId, shownVersion, onLive, initial?.timeline);

  // Replay folds prefixes of the version's events: loaded the first time the replay bar is used.
  const [replayEvents, setReplayEvents] = useState<{ version: number | undefined; events: StoredEventDto[] } | null>(null);
  const loadedReplay = replayEvents && replayEvents.version === stream.version ? replayEvents.events : null;
  const replay = useReplay(loadedReplay ?? NO_EVENTS, (e) => {
    if (e.event.type === "deliver_promoted") animator.emit(edgeId(e.event.source, e.event.target), { durationMs: 450 });
  });
  const withReplayEvents = (then: () => void) => {
    if (loadedReplay) return then();
    const forVersion = stream.version;
    void stream.allEvents().then((events) => {
      setReplayEvents({ version: forVersion, events });
      then();
    });
  };
  shownRef.current = { shown: shownVersion, replaying: replay.cursor !== null };

  // The replay position as an event of the log: the state panel shows the state there, and a fork starts there.
  const replayEvent = replay.cursor === null || !loadedReplay ? null : (loadedReplay[Math.max(0, replay.cursor - 1)] ?? null);
  const replayPoint = useRunPoint(instanceId, replayEvent?.id ?? null);
  const [forkFrom, setForkFrom] = useState<{ eventId: number; label: string } | null>(null);
  const eventLabel = (index: number) => `event ${stream.before + index + 1}`;
  const replayModel = useMemo(() => (replay.cursor === null ? null : foldEvents(loadedReplay ?? NO_EVENTS, replay.cursor)), [loadedReplay, replay.cursor]);
  const model = replayModel ?? stream.model;
  // Per topology object, which a refetch keeps when nothing in it changed (structural sharing).
  const detailTopology = detail.data?.topology;
  const topology = useMemo(() => (detailTopology ? instanceTopology(detailTopology) : null), [detailTopology]);

  const [selectedNode, setSelectedNode] = useState<string | null>(null);
  const [selected, setSelected] = useState<{ index: number; row: TimelineRowDto | undefined } | null>(null);
  const selectedEvent = selected?.index ?? null;
  const selectedRow = selected === null ? undefined : (stream.rowAt(selected.index) ?? selected.row);
  const highlight = useMemo(() => {
    if (!selectedRow) return { nodes: new Set<string>(), edges: new Set<string>() };
    const d = describeEvent(selectedRow);
    // An inner graph's event lights up its subgraph node on the outer canvas.
    if (selectedRow.scope) return { nodes: new Set([selectedRow.scope.split("/")[0]]), edges: new Set<string>() };
    return { nodes: new Set(d.nodes), edges: new Set(d.edge ? [d.edge] : []) };
  }, [selectedRow]);

  // Subgraph nodes: their inner graph's progress, from the inner nodes' states (`<node>/<inner>`).
  const innerOf = useMemo(() => new Map((detail.data?.topology.nodes ?? []).filter((n) => n.inner).map((n) => [n.name, n.inner ?? []])), [detail.data?.topology]);
  const captions = useMemo(() => {
    const m = new Map<string, string>();
    for (const [node, runs] of model.runs) if (runs > 1 && !node.includes("/")) m.set(node, `${runs} runs`);
    for (const [node, inner] of innerOf) {
      const done = inner.filter((n) => model.states.get(`${node}/${n}`) === "completed").length;
      const state = model.states.get(node);
      // Short: the node card has room for about 16 characters after its type.
      if (state && state !== "completed") m.set(node, `${state} · ${done}/${inner.length}`);
      else if (state) m.set(node, `${done}/${inner.length} inner`);
    }
    return m;
  }, [model.runs, model.states, innerOf]);

  // Controls
  const [pending, setPending] = useState<string | null>(null);
  const [controlError, setControlError] = useState<string | null>(null);
  const [pausing, setPausing] = useState(false);
  const [deliverOpen, setDeliverOpen] = useState(false);
  const [reinvokeOpen, setReinvokeOpen] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["instances", "get", instanceId] });

  const command = useMutation({
    mutationFn: async (c: { label: string; run: () => Promise<unknown> }) => c.run(),
    onMutate: (c) => {
      setPending(c.label);
      setControlError(null);
    },
    onError: (e, c) => setControlError(`${c.label}: ${errorMessage(e)}`),
    // Pending until the instance is read again: the toolbar then shows what the command did (a
    // reinvoke's new version, a resumed run), never the state from before it for a refetch's length.
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: ["instances", "get", instanceId] });
      setPending(null);
    },
  });

  const onLatest = shownVersion === undefined || shownVersion === latestVersion;
  // The stream's model once it describes the version shown: right after a reinvoke shows version N+1,
  // the model still folds version N's events until N+1's summary loads (it would say "completed").
  const liveStatus = (onLatest && replay.cursor === null && stream.version === shownVersion ? model.status : null) ?? detail.data?.summary.status ?? "running";
  const status = onLatest ? liveStatus : (detail.data?.summary.versions.find((v) => v.version === shownVersion)?.status ?? liveStatus);
  const waiting = onLatest && detail.data?.waitingFor && (detail.data.waitingFor as HumanInputRequest).kind === "human_input" ? (detail.data.waitingFor as HumanInputRequest) : null;
  const waitingRequest = waiting && status === "paused" ? waiting : null;
  // The list's label for the same run: paused while a person's answer is awaited is "waiting for input".
  const waitingFor = onLatest && status === "paused" ? (detail.data?.waitingFor ?? null) : null;
  const waitingForPerson = waitingFor === null ? null : NODE_STATE_LABEL[isAgentApproval(waitingFor) ? "approval" : "waiting"];
  const answered: AnswerRecord | null = detail.data?.summary.answers.findLast((a) => a.version === detail.data?.summary.shownVersion) ?? null;
  const latestStatus = onLatest ? status : (detail.data?.summary.status ?? status);
  // Accepted work no worker has started (a cluster's `queued` reply), until a run_started newer than the
  // instance as read arrives, or the run shows as running.
  const queued =
    onLatest && replay.cursor === null && status !== "running" && runStartedAt <= detail.dataUpdatedAt ? (detail.data?.summary.queued ?? null) : null;
  queuedShown.current = queued !== null;
  const allowed = controlAvailability(status, waitingRequest !== null ? "input" : waitingFor !== null && isAgentApproval(waitingFor) ? "approval" : null, queued);

  useEffect(() => {
    if (status !== "running") setPausing(false);
  }, [status]);

  const draining =
    status === "running" && (pausing || model.draining)
      ? model.draining && model.draining.finishing.length > 0
        ? `${model.draining.reason === "stop" ? "Stopping" : "Pausing"}: waiting for ${model.draining.finishing.join(", ")} to finish`
        : "Pausing: letting running nodes finish…"
      : null;

  if (detail.isError) {
    return (
      <main className="mx-auto max-w-6xl px-6 py-10">
        <Link href="/instances" className="text-sm text-zinc-400 hover:text-white">← Instances</Link>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight text-white">{missing ? "Instance not found" : "Instance"}</h1>
        <div className="mt-6">
          {missing ? (
            <EmptyState title={`There is no instance ${instanceId}`} action={<Link href="/instances" className="rounded-lg bg-indigo-500 px-3.5 py-1.5 text-sm font-semibold text-on-accent hover:bg-indigo-400">See all instances</Link>}>
              It may have been deleted, or the id was cut short when copied.
            </EmptyState>
          ) : (
            <ErrorState title={`Could not open instance ${instanceId}`} error={detail.error} onRetry={() => void detail.refetch()} />
          )}
        </div>
      </main>
    );
  }
  if (!detail.data) {
    return (
      <main className="flex h-[calc(100dvh-3.5rem)] flex-col" aria-label="Loading the instance">
        <div className="h-12 border-b border-white/10 px-4 py-3"><Skeleton className="h-5 w-80" /></div>
        <div className="flex flex-1">
          <div className="flex-1 p-6"><Skeleton className="h-full" /></div>
          <div className="w-[360px] space-y-3 border-l border-white/10 p-4"><Skeleton className="h-32" /><Skeleton className="h-48" /></div>
        </div>
      </main>
    );
  }

  const data = detail.data;
  const finished = FINISHED.has(status);
  const nodeNames = data.topology.nodes.filter((n) => !n.isStart && !n.isEnd).map((n) => n.name);
  const filterNodes = data.topology.nodes.flatMap((n) => [n.name, ...(n.inner ?? []).map((i) => `${n.name}/${i}`)]);

  return (
    <main className="flex h-[calc(100dvh-3.5rem)] min-w-[1024px] flex-col" data-testid="instance-view" data-status={status} data-queued={queued?.kind}>
      <InstanceToolbar
        detail={data}
        latestStatus={latestStatus}
        status={status}
        allowed={allowed}
        pending={pending}
        draining={draining}
        live={stream.live}
        waiting={waitingForPerson}
        queued={queued}
        actions={{
          pause: () => {
            setPausing(true);
            command.mutate({ label: "Pause", run: () => client.control.pause.mutate({ instanceId }) });
          },
          stop: () => command.mutate({ label: "Stop", run: () => client.control.stop.mutate({ instanceId }) }),
          resume: () => command.mutate({ label: "Resume", run: () => client.control.resume.mutate({ instanceId }) }),
          recover: () => command.mutate({ label: "Recover", run: () => client.control.recover.mutate({ instanceId }) }),
          deliver: () => setDeliverOpen(true),
          reinvoke: () => setReinvokeOpen(true),
          selectVersion: (v) => {
            replay.exit();
            setVersion(v === latestVersion ? undefined : v);
          },
        }}
      />
      {controlError && (
        <div role="alert" className="flex items-center justify-between border-b border-rose-500/30 bg-rose-950/40 px-4 py-1.5 text-xs text-rose-200">
          {controlError}
          <button type="button" onClick={() => setControlError(null)} className="text-rose-300 hover:text-white">Dismiss</button>
        </div>
      )}
      <div className="flex min-h-0 flex-1">
        <div className="flex min-w-0 flex-1 flex-col">
          <div className="relative min-h-0 flex-1">
            <TopologyCanvas
              topology={topology}
              states={model.states}
              captions={captions}
              highlightNodes={highlight.nodes}
              highlightEdges={highlight.edges}
              activeEdges={model.usedEdges}
              selectedNode={selectedNode}
              onNodeClick={setSelectedNode}
              animator={animator}
              testId="instance-canvas"
              sizeHint={CANVAS_SIZE_HINT}
              fitMinZoom={CANVAS_MIN_FIT_ZOOM}
              initialLayout={initial?.layout}
              layoutChanges={layoutChanges}
            />
          </div>
          <TimelinePanel
            onResize={timelineResized}
            stream={stream}
            nodes={filterNodes}
            selected={selectedEvent}
            cursor={replay.cursor}
            onSelect={(index, row) => setSelected(index === null ? null : { index, row })}
            onFork={(index, row) => setForkFrom({ eventId: row.id, label: eventLabel(index) })}
            header={
              finished && stream.loaded ? (
                <ReplayBar
                  count={stream.count}
                  cursor={replay.cursor}
                  playing={replay.playing}
                  onCursor={(i) => {
                    replay.seek(i);
                    withReplayEvents(() => {});
                  }}
                  onPlay={() => withReplayEvents(replay.play)}
                  onPause={replay.pause}
                  onExit={replay.exit}
                  onFork={replayEvent && replay.cursor !== null ? () => setForkFrom({ eventId: replayEvent.id, label: eventLabel(Math.max(0, replay.cursor! - 1)) }) : undefined}
                />
              ) : null
            }
          />
        </div>
        <aside className="w-[360px] shrink-0 overflow-y-auto border-l border-white/10 bg-zinc-950">
          <HumanInputCard
            instanceId={instanceId}
            request={waitingRequest}
            answered={waitingRequest && queued?.kind !== "answer" ? null : answered}
            queued={queued?.kind === "answer"}
            busy={pending === "Answer"}
            error={controlError?.startsWith("Answer") ? controlError : null}
            onAnswer={(value) => command.mutate({ label: "Answer", run: () => client.control.answer.mutate({ instanceId, value }) })}
          />
          <AgentPanels instanceId={instanceId} status={status} selectedNode={selectedNode} queued={queued?.kind === "decision"} onChanged={refresh} />
          <BreakpointsPanel
            nodes={nodeNames}
            breakpoints={data.breakpoints}
            heldAt={status === "paused" ? data.heldAt : null}
            busy={pending !== null}
            queued={queued?.kind === "resume" ? allowed.resume : null}
            editable={!finished}
            onChange={(nodes) => command.mutate({ label: "Breakpoints", run: () => client.control.setBreakpoints.mutate({ instanceId, nodes }) })}
            onStep={() => command.mutate({ label: "Step", run: () => client.control.step.mutate({ instanceId }) })}
            onContinue={() => command.mutate({ label: "Resume", run: () => client.control.resume.mutate({ instanceId }) })}
          />
          {selectedNode && (
            <NodeDetail
              node={selectedNode}
              detail={data}
              state={model.states.get(selectedNode)}
              inner={innerOf.get(selectedNode)?.map((n) => ({ name: n, state: model.states.get(`${selectedNode}/${n}`) }))}
              onClose={() => setSelectedNode(null)}
            />
          )}
          <InstanceSummary
            detail={data}
            status={status}
            waiting={waitingForPerson}
            queued={queued}
            timing={{ startedAt: model.startedAt, endedAt: model.endedAt }}
            failure={model.failure}
            actions={
              <InstanceActions
                instanceId={instanceId}
                status={latestStatus}
                archived={data.summary.archived}
                onChanged={refresh}
                onDeleted={() => {
                  void queryClient.removeQueries({ queryKey: ["instances", "get", instanceId] });
                  router.push("/instances");
                }}
              />
            }
          />
          <StatePanel
            detail={data}
            replaying={replay.cursor !== null}
            point={replayPoint.data && replayPoint.data.eventId === replayEvent?.id ? replayPoint.data : undefined}
            pointLabel={replay.cursor !== null ? eventLabel(Math.max(0, replay.cursor - 1)) : undefined}
          />
          {!selectedNode && <p className="px-4 py-3 text-xs text-zinc-500">Click a node to see its invocations, inputs and outputs. Click an event to find it on the canvas.</p>}
        </aside>
      </div>
      {deliverOpen && (
        <DeliverDialog
          open
          onClose={() => setDeliverOpen(false)}
          nodes={nodeNames}
          initialNode={selectedNode}
          busy={pending === "Deliver"}
          error={controlError?.startsWith("Deliver") ? controlError : null}
          onDeliver={(node, content) =>
            command.mutate({ label: "Deliver", run: () => client.control.deliver.mutate({ instanceId, node, content }) }, { onSuccess: () => setDeliverOpen(false) })
          }
        />
      )}
      {forkFrom && (
        <ForkDialog
          detail={data}
          eventId={forkFrom.eventId}
          label={forkFrom.label}
          onClose={() => setForkFrom(null)}
          onForked={(id) => {
            setForkFrom(null);
            void queryClient.invalidateQueries({ queryKey: ["instances", "get", instanceId] });
            router.push(`/instances/${id}`);
          }}
        />
      )}
      {reinvokeOpen && (
        <ReinvokeDialog
          open
          onClose={() => setReinvokeOpen(false)}
          nextVersion={(latestVersion ?? 0) + 1}
          busy={pending === "Re-invoke"}
          error={controlError?.startsWith("Re-invoke") ? controlError : null}
          onSubmit={(input) =>
            command.mutate(
              { label: "Re-invoke", run: () => client.control.reinvoke.mutate({ instanceId, input }) },
              {
                onSuccess: () => {
                  setReinvokeOpen(false);
                  setVersion(undefined);
                },
              },
            )
          }
        />
      )}
    </main>
  );
}
