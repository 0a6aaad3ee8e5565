/** The YAML a new agent starts from: every section, with the defaults, so it documents itself. */
export function newAgentYaml(name: string): string {
  return `name: ${name}
description: What this agent is for, in one sentence.
instructions: >
  You are a careful assistant. Describe here who the agent is, how it works,
  and what a good result looks like.
tools: [todo_write]          # from the tool catalog (right)
approval:
  policy: tool_default       # tool_default | always | never
  tools: []                  # tools that always ask first
limits:
  max_iterations: 25
  tool_timeout_seconds: 120
  tool_result_limit: 50000
hooks:
  loop_detection: true
  length_guard: true
  todo_continuation: true
  current_time: false
  training_data: true         # tag finished turns for the Traces page's training-data export
busy_input: QUEUE            # chat, a message sent while a turn runs: QUEUE | INTERRUPT | STEER
# tracing:
#   tier: full               # minimal | standard | full (default: MODEX_TRACE_TIER, standard)
`;
}
