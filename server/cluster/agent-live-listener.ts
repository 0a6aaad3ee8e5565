import type { EngineEvent } from "@/server/graph/events";
import type { AgentRuns } from "@/server/services/agents/agent-runs";
import { AGENT_LIVE_CHANNEL, type AgentLiveBatch } from "./agent-live-batch";
import { CONTROL_CHANNEL, type ControlMessage } from "./control-channel";
import { ListenConnection } from "./listen-connection";

const RESYNC: ControlMessage = { kind: "live_resync" };

/**
 * A web process's side of the agent live-text relay (AgentLiveSender): LISTENs on `modex_agent_live`
 * and hands each relayed delta to this process's AgentRuns (`received`: its viewers get it, a late one
 * the text so far; nothing is relayed on). A payload of `ignoreFrom` (this process's own sender, with
 * MODEX_ROLE=all) is skipped: its deltas were published here already. Each time it listens (at start,
 * and again after a drop, when what was sent meanwhile is lost to it) it asks the workers for the
 * whole text so far of every call still streaming (`live_resync`; AgentLiveSender.resync).
 *
 * What a worker that died mid-call streamed would be kept for ever (its `end` never comes): the text
 * kept for a call is dropped when its node ends or its run ends (`settle`, fed the cluster's engine
 * events), and when another sender streams the same invocation (a worker that took the run over).
 */
export class AgentLiveListener {
  /** Who streams each invocation relayed here (`instanceId␀invocationId` → sender id), until its call ends. */
  private readonly senders = new Map<string, string>();
  private connection: ListenConnection | null = null;
  /** Notifications received, and found missing by their sequence numbers (lost while not listening). */
  readonly stats = { notifications: 0, missed: 0, resyncs: 0 };
  private readonly lastSeq = new Map<string, number>();

  private constructor(private readonly deps: { runs: AgentRuns; ignoreFrom?: string }) {}

  static async start(args: { url: string; runs: AgentRuns; ignoreFrom?: string; reconnectMs?: number }): Promise<AgentLiveListener> {
    const listener = new AgentLiveListener({ runs: args.runs, ignoreFrom: args.ignoreFrom });
    listener.connection = await ListenConnection.start({
      url: args.url,
      channels: [AGENT_LIVE_CHANNEL],
      applicationName: "modex-agent-live",
      reconnectMs: args.reconnectMs,
      onNotification: (_channel, payload) => listener.received(payload),
      // Sent once LISTEN took effect: the whole texts it brings arrive after it, on this connection.
      onConnected: async (client) => {
        await client.query({ text: "SELECT pg_notify($1, $2)", values: [CONTROL_CHANNEL, JSON.stringify(RESYNC)] });
        listener.stats.resyncs++;
      },
    });
    return listener;
  }

  /** An engine event of the cluster: a node or run that ended takes its calls' kept text with it. */
  settle(event: EngineEvent): void {
    switch (event.type) {
      case "node_completed":
      case "node_failed":
      case "node_cancelled":
        this.senders.delete(key(event.instanceId, event.invocationId));
        this.deps.runs.drop(event.instanceId, event.invocationId);
        return;
      case "run_finished":
        this.dropInstance(event.instanceId);
        return;
      case "instance_status":
        if (event.to !== "running") this.dropInstance(event.instanceId);
        return;
    }
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }

  /** The LISTEN connection's server pid (a test cuts it). */
  get backendPid(): number | undefined {
    return this.connection?.backendPid;
  }

  private dropInstance(instanceId: string): void {
    const prefix = `${instanceId}\0`;
    for (const k of this.senders.keys()) if (k.startsWith(prefix)) this.senders.delete(k);
    this.deps.runs.drop(instanceId);
  }

  private received(payload: string): void {
    let batch: AgentLiveBatch;
    try {
      batch = JSON.parse(payload) as AgentLiveBatch;
    } catch {
      return; // not a relay's
    }
    if (!Array.isArray(batch.deltas) || batch.from === this.deps.ignoreFrom) return;
    this.stats.notifications++;
    const last = this.lastSeq.get(batch.from);
    if (last !== undefined && batch.seq > last + 1) this.stats.missed += batch.seq - last - 1;
    this.lastSeq.set(batch.from, batch.seq);
    for (const delta of batch.deltas) {
      const k = key(delta.instanceId, delta.invocationId);
      const sender = this.senders.get(k);
      // Another worker streams this invocation now: what the one before streamed is void.
      if (sender !== undefined && sender !== batch.from) this.deps.runs.drop(delta.instanceId, delta.invocationId);
      if (delta.channel === "end") this.senders.delete(k);
      else this.senders.set(k, batch.from);
      this.deps.runs.received(delta);
    }
  }
}

const key = (instanceId: string, invocationId: string) => `${instanceId}\0${invocationId}`;
