import {
  AgentFailureError,
  AgentPortError,
  type AgentRunContext,
  type AgentRunFunction,
  CancellationError,
} from '@agentport/core';
import { approvalAnswerOf } from '@agentport/core/internal';
import {
  type AgentInputItem,
  RunContext,
  type Runner,
  RunState,
  run,
  type StreamRunOptions,
} from '@openai/agents';
import {
  type ApprovalState,
  approvalStateFor,
  approvalStateOf,
  callIdOf,
  pauseForApproval,
} from './approvals.ts';
import { toInputItems } from './input-items.ts';
import { toAgentEvent } from './run-events.ts';
import type { AgentNamer, SdkAgent } from './sdk-agent.ts';

/** What every run of one adapted agent shares. */
export interface RunSettings {
  /** The AgentPort name (for errors). */
  readonly name: string;
  readonly agent: SdkAgent;
  readonly nameOf: AgentNamer;
  readonly runner: Runner | undefined;
  readonly maxTurns: number | undefined;
  /** Makes the SDK run context's value for a run (none: the SDK's default). */
  readonly context: ((context: AgentRunContext) => unknown) | undefined;
}

/** The state of a paused run, rebuilt, with the caller's answer to the interruption it asked about. */
async function answeredState(
  settings: RunSettings,
  context: AgentRunContext,
  paused: ApprovalState,
  approved: boolean,
): Promise<RunState<unknown, SdkAgent>> {
  // A fresh context value replaces the saved one; the approvals the state holds are merged in.
  const state =
    settings.context === undefined
      ? await RunState.fromString(settings.agent, paused.runState)
      : await RunState.fromStringWithContext(
          settings.agent,
          paused.runState,
          new RunContext(settings.context(context)),
          { contextStrategy: 'merge' },
        );
  const interruptions = state.getInterruptions();
  const item = interruptions.find((entry) => callIdOf(entry) === paused.callId);
  if (item === undefined) {
    throw new AgentFailureError({
      agentName: settings.name,
      message: `Agent '${settings.name}' has no tool call waiting for approval in its saved state`,
    });
  }
  if (approved) state.approve(item);
  else state.reject(item);
  return state;
}

/** The final output as our output: a string as it is, structured output as JSON, else the deltas. */
function outputOf(finalOutput: unknown): string | undefined {
  if (finalOutput === undefined || finalOutput === null) return undefined;
  return typeof finalOutput === 'string' ? finalOutput : JSON.stringify(finalOutput);
}

/** Starts one streamed SDK run, on the given Runner or the SDK's default one. */
function startRun(
  settings: RunSettings,
  input: AgentInputItem[] | RunState<unknown, SdkAgent>,
  context: AgentRunContext,
) {
  const options: StreamRunOptions<unknown, SdkAgent> = {
    stream: true,
    signal: context.signal,
    ...(settings.maxTurns !== undefined && { maxTurns: settings.maxTurns }),
    // A resumed run's context comes with its state.
    ...(settings.context !== undefined &&
      Array.isArray(input) && { context: settings.context(context) }),
  };
  return settings.runner === undefined
    ? run(settings.agent, input, options)
    : settings.runner.run(settings.agent, input, options);
}

async function* runStreamed(
  settings: RunSettings,
  context: AgentRunContext,
  paused: ApprovalState | undefined,
  approved: boolean | undefined,
): ReturnType<AgentRunFunction> {
  const input =
    paused !== undefined && approved !== undefined
      ? await answeredState(settings, context, paused, approved)
      : toInputItems(context.history, context.message);
  const result = await startRun(settings, input, context);
  for await (const event of result) {
    const mapped = toAgentEvent(event, settings.nameOf);
    if (mapped !== undefined) yield mapped;
  }
  // A canceled SDK run just ends its stream; it has no final output to read (the SDK warns).
  if (result.cancelled || context.signal.aborted) throw new CancellationError();
  // Of several calls waiting for approval, one is asked at a time: the run stops again for the next.
  const [interruption] = result.interruptions;
  if (interruption !== undefined) {
    return pauseForApproval(approvalStateFor(result.state.toString(), interruption));
  }
  return outputOf(result.finalOutput);
}

/**
 * The run function of an adapted agent: one streamed SDK run of the conversation (or of the saved
 * state a caller's approval answers), its events as ours, a pause for each tool needing approval.
 */
export function createRun(settings: RunSettings): AgentRunFunction {
  return async function* runAgent(_input, context) {
    const paused = approvalStateOf(context.resumeState);
    const approved = paused === undefined ? undefined : approvalAnswerOf(context.message);
    // An answer that is neither yes nor no asks the same question again rather than guessing.
    if (paused !== undefined && approved === undefined) return pauseForApproval(paused);
    try {
      return yield* runStreamed(settings, context, paused, approved);
    } catch (error) {
      if (AgentPortError.isInstance(error)) throw error;
      // The SDK's or the model's error (its request, its headers) is kept as the cause, never sent.
      throw new AgentFailureError({ agentName: settings.name, cause: error });
    }
  };
}
