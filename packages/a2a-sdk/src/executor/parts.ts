import type { Artifact, Message, Part } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { randomUuid, toAgentFailure } from '@agentport/core/internal';

/** The id (and name) of the artifact that holds an agent's answer. */
export const OUTPUT_ARTIFACT_ID = 'output';

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: undefined,
  };
}

/** A structured (JSON) part. */
export function dataPart(data: unknown): Part {
  return {
    content: { $case: 'data', value: data },
    mediaType: 'application/json',
    filename: '',
    metadata: undefined,
  };
}

/**
 * The status parts of a run that threw, as those of a run that ended with an `error` event: its
 * message and the `error` event as data. An AgentPort error says its own code and message;
 * anything else is `agent_failure` ("Agent '<name>' failed"), its text never put on the wire.
 */
export function failureParts(error: unknown, agentName: string): Part[] {
  const { code, message } = toAgentFailure(error, agentName);
  return [textPart(message), dataPart({ type: 'error', code, message })];
}

/** An agent message of a task, such as a status message. */
export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUuid(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The artifact that holds an agent's answer (or the part of it in one update). */
export function outputArtifact(text: string): Artifact {
  return {
    artifactId: OUTPUT_ARTIFACT_ID,
    name: OUTPUT_ARTIFACT_ID,
    description: '',
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/**
 * The text of a list of parts: text parts as they are, data parts as JSON, files and raw bytes
 * skipped; parts are joined with a newline.
 */
export function textOfParts(parts: readonly Part[]): string {
  const texts: string[] = [];
  for (const part of parts) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (part.content?.$case === 'data') texts.push(JSON.stringify(part.content.value));
  }
  return texts.join('\n');
}
