import type { Artifact, Message, Part, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type {
  Artifact as CoreArtifact,
  Message as CoreMessage,
  Part as CorePart,
  Task as CoreTask,
  TaskError,
  TaskStatus,
} from '@agentport/core';
import { dataPart, OUTPUT_ARTIFACT_ID, outputArtifact, textPart } from '../executor/parts.ts';

// Core's task in the SDK's shape and back: the one task of both A2A flavours, read through either.

const STATE_OF: Readonly<Record<TaskStatus, TaskState>> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  'auth-required': TaskState.TASK_STATE_AUTH_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

const STATUS_OF = new Map<TaskState, TaskStatus>(
  Object.entries(STATE_OF).map(([status, state]) => [state, status as TaskStatus]),
);

/** The SDK's state of a core status. */
export function a2aStateOf(status: TaskStatus): TaskState {
  return STATE_OF[status];
}

/** The core status of an SDK state; undefined for `TASK_STATE_UNSPECIFIED` and unknown ones. */
export function coreStatusOf(state: TaskState | undefined): TaskStatus | undefined {
  return state === undefined ? undefined : STATUS_OF.get(state);
}

/**
 * A core part in the SDK's shape (file bytes decoded from base64). Core's text and data parts
 * carry no media type: none is said (as a caller that sent none sees its message again).
 */
function a2aPartOf(part: CorePart): Part {
  switch (part.kind) {
    case 'text':
      return {
        content: { $case: 'text', value: part.text },
        mediaType: '',
        filename: '',
        metadata: undefined,
      };
    case 'data':
      return {
        content: { $case: 'data', value: part.data },
        mediaType: '',
        filename: '',
        metadata: undefined,
      };
    case 'file':
      return {
        content:
          part.url === undefined
            ? { $case: 'raw', value: Buffer.from(part.bytes, 'base64') }
            : { $case: 'url', value: part.url },
        mediaType: part.mediaType,
        filename: part.name ?? '',
        metadata: undefined,
      };
  }
}

/** Core parts in the SDK's shape. */
export function a2aPartsOf(parts: readonly CorePart[]): Part[] {
  return parts.map(a2aPartOf);
}

/** An SDK part in core's words; undefined for one without content. */
function corePartOf(part: Part): CorePart | undefined {
  const { content } = part;
  switch (content?.$case) {
    case 'text':
      return { kind: 'text', text: content.value };
    case 'data': {
      const data = content.value as unknown;
      const object = typeof data === 'object' && data !== null && !Array.isArray(data);
      return { kind: 'data', data: object ? (data as Record<string, unknown>) : { value: data } };
    }
    case 'url':
    case 'raw': {
      const name = part.filename === '' ? {} : { name: part.filename };
      const mediaType = part.mediaType || 'application/octet-stream';
      return content.$case === 'url'
        ? { kind: 'file', url: content.value, mediaType, ...name }
        : {
            kind: 'file',
            bytes: Buffer.from(content.value).toString('base64'),
            mediaType,
            ...name,
          };
    }
    default:
      return undefined;
  }
}

/** An SDK message in core's words (its parts without content left out). */
export function coreMessageOf(message: Message): CoreMessage {
  const parts: CorePart[] = [];
  for (const part of message.parts ?? []) {
    const converted = corePartOf(part);
    if (converted !== undefined) parts.push(converted);
  }
  return {
    messageId: message.messageId,
    role: message.role === Role.ROLE_AGENT ? 'agent' : 'user',
    parts,
  };
}

/** A core message of a task in the SDK's shape. */
function a2aMessageOf(message: CoreMessage, task: CoreTask): Message {
  return {
    messageId: message.messageId,
    contextId: task.contextId,
    taskId: task.id,
    role: message.role === 'agent' ? Role.ROLE_AGENT : Role.ROLE_USER,
    parts: message.parts.map(a2aPartOf),
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function a2aArtifactOf(artifact: CoreArtifact): Artifact {
  return {
    artifactId: artifact.artifactId,
    name: artifact.name ?? '',
    description: '',
    parts: artifact.parts.map(a2aPartOf),
    metadata: undefined,
    extensions: [],
  };
}

/** The status parts of a failed task: its message, and the error as data (as the stream says it). */
export function errorParts(error: TaskError): Part[] {
  return [textPart(error.message), dataPart({ type: 'error', ...error })];
}

/** What a task says with its status when it says nothing itself (as its stream said it). */
function defaultStatusParts(task: CoreTask): Part[] | undefined {
  if (task.status === 'failed' && task.error !== undefined) return errorParts(task.error);
  if (task.status === 'canceled') return [textPart('The task was canceled')];
  return undefined;
}

function statusMessageOf(task: CoreTask): Message | undefined {
  if (task.statusMessage !== undefined) return a2aMessageOf(task.statusMessage, task);
  const parts = defaultStatusParts(task);
  if (parts === undefined) return undefined;
  return {
    messageId: `${task.id}-status-${task.seq}`,
    contextId: task.contextId,
    taskId: task.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * A core task as an A2A task: its status (message included, or what its stream said with it),
 * its history, its text view as the `output` artifact (as the stream built it), its artifacts.
 */
export function a2aTaskOf(task: CoreTask): Task {
  const artifacts = task.artifacts.map(a2aArtifactOf);
  const output = task.output ?? '';
  if (output !== '' && !artifacts.some(({ artifactId }) => artifactId === OUTPUT_ARTIFACT_ID)) {
    artifacts.unshift(outputArtifact(output));
  }
  return {
    id: task.id,
    contextId: task.contextId,
    status: {
      state: STATE_OF[task.status],
      message: statusMessageOf(task),
      timestamp: task.updatedAt,
    },
    artifacts,
    history: task.messages.map((message) => a2aMessageOf(message, task)),
    metadata: Object.keys(task.metadata).length === 0 ? undefined : { ...task.metadata },
  };
}
