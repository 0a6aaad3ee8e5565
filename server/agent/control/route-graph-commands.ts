import { ControlCommandType, GRAPH_COMMANDS, type ControlCommand } from "./control-command";
import type { ControlChannel } from "./in-memory-control-channel";

/**
 * The consumer of the four graph-instance commands: the app's GraphControlService implements it (pause,
 * stop, resume, deliver all converge there). The agent layer only routes; it never acts on an instance.
 */
export interface GraphCommandHandler {
  pause(instanceId: string, command: ControlCommand): Promise<void>;
  stop(instanceId: string, command: ControlCommand): Promise<void>;
  resume(instanceId: string, command: ControlCommand): Promise<void>;
  deliver(instanceId: string, command: ControlCommand): Promise<void>;
}

/**
 * Drains a session's PAUSE_GRAPH / STOP_GRAPH / RESUME_GRAPH / DELIVER_TO_NODE commands and hands each
 * to the handler, oldest first. A graph command without an instance id is malformed and returned unrouted.
 */
export async function routeGraphCommands(channel: ControlChannel, sessionId: string, handler: GraphCommandHandler): Promise<ControlCommand[]> {
  const unrouted: ControlCommand[] = [];
  for (const command of channel.drain(sessionId, GRAPH_COMMANDS)) {
    const id = command.graphInstanceId;
    if (!id) {
      unrouted.push(command);
      continue;
    }
    await dispatch(handler, id, command);
  }
  return unrouted;
}

function dispatch(handler: GraphCommandHandler, id: string, command: ControlCommand): Promise<void> {
  switch (command.type) {
    case ControlCommandType.PAUSE_GRAPH:
      return handler.pause(id, command);
    case ControlCommandType.STOP_GRAPH:
      return handler.stop(id, command);
    case ControlCommandType.RESUME_GRAPH:
      return handler.resume(id, command);
    case ControlCommandType.DELIVER_TO_NODE:
      return handler.deliver(id, command);
    default:
      throw new Error(`${command.type} is not a graph command`);
  }
}
